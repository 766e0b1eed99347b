/**
 * CORS at the local edge, answer for answer what Envoy's CORS filter does at the other edge
 * (envoy/src/cors.ts; why each choice: ADR 0013):
 *   - every answer says that it varies with `Origin`, so no cache hands one origin's answer to
 *     another;
 *   - under /api/, an answer to an allowed origin names that origin in
 *     Access-Control-Allow-Origin and exposes `corsExposedHeaders`, errors included, so that a
 *     browser app reads every JSON error body;
 *   - a preflight (OPTIONS with Origin and Access-Control-Request-Method) from an allowed origin
 *     is answered here, before any token is asked for: 204 with the methods of the path, the
 *     request headers allowed and the max age. From any other origin it is an OPTIONS request
 *     like any other (405, or 404 for an unknown path), and nothing names the origin.
 * No Access-Control-Allow-Credentials: the API takes a bearer token in Authorization, never a
 * cookie, so no browser needs to send credentials.
 */
import type { DualRequest, DualResponse } from "@commerce/runtime/server";
import { anyOrigin, corsExposedHeaders, corsRequestHeaders, type CorsSettings } from "./cors-settings.js";
import type { RouteTable } from "./route-table.js";

/**
 * Sets the CORS headers of the answer to `req` (for `pathname`, its path without the query).
 * Returns true when it answered the request itself (a preflight).
 */
export type CorsHook = (req: DualRequest, res: DualResponse, pathname: string) => boolean;

/** The paths of the API: the only ones a browser app calls. */
const apiPrefix = "/api/";

export function createCors(settings: CorsSettings, routes: RouteTable): CorsHook {
  const anyAllowed = settings.allowedOrigins.includes(anyOrigin);
  const allowed = new Set(settings.allowedOrigins);
  const exposed = corsExposedHeaders.join(", ");
  const requestHeaders = [...corsRequestHeaders, ...settings.allowedHeaders].join(", ");
  const maxAge = String(settings.maxAgeSeconds);

  return (req, res, pathname) => {
    res.setHeader("vary", "Origin");
    const origin = req.headers.origin;
    if (origin === undefined || origin === "" || !pathname.startsWith(apiPrefix)) return false;
    if (!anyAllowed && !allowed.has(origin)) return false;
    res.setHeader("access-control-allow-origin", origin);
    res.setHeader("access-control-expose-headers", exposed);
    const requestedMethod = req.headers["access-control-request-method"];
    if (req.method !== "OPTIONS" || requestedMethod === undefined || requestedMethod === "") return false;

    // No route binds OPTIONS: the match names the path's methods, or none for an unknown path.
    const match = routes.match("OPTIONS", pathname);
    if (match.kind === "method_not_allowed")
      res.setHeader("access-control-allow-methods", match.allow.join(", "));
    res.setHeader("access-control-allow-headers", requestHeaders);
    res.setHeader("access-control-max-age", maxAge);
    res.writeHead(204);
    res.end();
    return true;
  };
}
