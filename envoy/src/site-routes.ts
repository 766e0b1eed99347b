/**
 * The public site at the Envoy edge (ADR 0027): the
 * paths the local edge serves besides the API (services/edge/src/public-site.ts,
 * `publicSitePaths`: `/openapi.json` and `/docs` exactly, everything under `/docs/`, `/assets/`
 * and `/checkout/return/`, and the web app's pages) go to the `web` deployable, which answers them as the
 * local edge does, its 404 and 405 included. They
 * are not the API's routes, so the API's filters step aside on them (verified on Envoy 1.40):
 *   - the REST filter and the transcoder leave the request and the answer as they are, and
 *     jwt_authn asks for no token (the site is public);
 *   - no edge credential is sent: the `web` process is given no secret and needs none, and its
 *     cluster has no credential filter (upstream-clusters.ts);
 *   - the body is not buffered: another method is the site's 405 before its body is read, as on
 *     the local edge, not a 413;
 *   - no CORS header: the local edge adds them under /api/ only.
 * Envoy's own replies on them (the site down: 503) keep the JSON error body (local-replies.ts).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { publicSitePaths } from "@commerce/edge";
import { restFilterName, routeTimeoutSeconds } from "./rest-routes.js";

/** The HTTP filters of the API, which have nothing to do on the site's routes. */
const apiFilters = [
  "envoy.filters.http.cors",
  "envoy.filters.http.jwt_authn",
  "envoy.filters.http.buffer",
  restFilterName,
  "envoy.filters.http.grpc_json_transcoder",
];

/** Envoy's generic per-route switch, which any HTTP filter obeys. */
const disabled: JsonObject = {
  "@type": "type.googleapis.com/envoy.config.route.v3.FilterConfig",
  disabled: true,
};

/** A route of the site to `cluster`, the API's filters off. */
function siteRoute(cluster: string, name: string, match: JsonObject): JsonObject {
  return {
    name: `site ${name}`,
    match,
    route: { cluster, timeout: `${routeTimeoutSeconds}s` },
    typed_per_filter_config: Object.fromEntries(apiFilters.map((filter) => [filter, disabled])),
  };
}

/** The site's files, to the cluster `cluster`: exact paths first, then the prefixes. */
export function siteRoutes(cluster: string): JsonObject[] {
  return [
    ...publicSitePaths.exact.map((path) => siteRoute(cluster, path, { path })),
    ...publicSitePaths.prefixes.map((prefix) => siteRoute(cluster, `${prefix}*`, { prefix })),
  ];
}

/**
 * The web app's pages (`publicSitePaths.appPages`: any path without a dot), to `cluster`. Last
 * in the table: the probes, the site's files and every path under /api/ are matched before, and
 * the web process answers what is left of them (`/api` itself, say) with the JSON 404.
 */
export function appPageRoutes(cluster: string): JsonObject[] {
  return [siteRoute(cluster, "app pages", { safe_regex: { regex: publicSitePaths.appPages } })];
}
