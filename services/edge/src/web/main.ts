/**
 * The `web` deployable (ADR 0027): the public site
 * that the local edge serves in embedded mode, `/openapi.json`, `/docs` and the web app at `/`
 * (public-site.ts), as a process of its own for Envoy to route those paths to, in the
 * multi-process topology and in Kubernetes.
 */
import { runWebProcess } from "@commerce/runtime/server";
import { createPublicSite, readPublicSiteFiles } from "../public-site.js";

runWebProcess({ name: "web", readPages: () => createPublicSite(readPublicSiteFiles()) }, process.env);
