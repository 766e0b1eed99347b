/**
 * The `web` deployable (ADR 0027): the public site
 * that the local edge serves in embedded mode, `/openapi.json`, `/docs` and the web app at `/`
 * (public-site.ts), as a process of its own for Envoy to route those paths to, in the
 * multi-process topology and in Kubernetes.
 */
import { readPaymentGatewayUrl } from "@commerce/runtime/money";
import { runWebProcess } from "@commerce/runtime/server";
import { createPublicSite, readPublicSiteFiles } from "../public-site.js";

runWebProcess(
  {
    name: "web",
    readSettings: (env) => ({ paymentGatewayUrl: readPaymentGatewayUrl(env) }),
    readPages: (settings) => createPublicSite(readPublicSiteFiles(settings)),
  },
  process.env,
);
