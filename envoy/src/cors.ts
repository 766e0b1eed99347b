/**
 * CORS at the Envoy edge, with Envoy's own CORS filter, answer for answer what the local edge
 * does (services/edge/src/cors.ts; why each choice: ADR 0013). Verified on
 * Envoy 1.40:
 *   - the policy (origins, request headers, max age, exposed headers) sits on the virtual host;
 *     the route a preflight reaches adds its path's methods;
 *   - the filter acts only on routes to a cluster, never on direct responses: so the refusals
 *     under /api/ (405 for another method, 404 for an unknown path) are routes to a cluster
 *     that the REST filter answers before anything goes upstream (rest-routes.ts), and a
 *     preflight, an OPTIONS request, reaches one of them;
 *   - it answers a preflight from an allowed origin 200, always; a Lua filter just before it,
 *     active only on those refusal routes (where no other answer is a 200), makes it 204;
 *   - a preflight from any other origin goes on (`forward_not_matching_preflights`) to the
 *     refusal it would get without CORS;
 *   - it adds no `Vary`: the header_mutation filter says `Vary: Origin` on every answer.
 * It sits before jwt_authn and the REST filter, so that a preflight never needs a token, and
 * their refusals (401, 400, 413 ...) come back through it with the headers.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { corsExposedHeaders, corsRequestHeaders, type CorsSettings } from "@commerce/edge";

/**
 * The CORS settings as Envoy's configuration takes them. A string in place of a list or number
 * is a placeholder that the Helm chart fills in (chart-files.ts): the origins' JSON list of
 * string matchers, `, <name>` per extra request header, the max age as a quoted number.
 */
export interface EnvoyCors {
  readonly allowedOrigins: CorsSettings["allowedOrigins"] | string;
  readonly allowedHeaders: CorsSettings["allowedHeaders"] | string;
  readonly maxAgeSeconds: number | string;
}

const corsFilterName = "envoy.filters.http.cors";
const preflightFilterName = "commerce.preflight";
/** The preflight filter's one script, which refusal routes name. */
const preflightScript = "preflight";

const corsPolicyType = "type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy";

/** On a refusal route, a 200 is the CORS filter's answer to a preflight: the local edge's is 204. */
const preflightSource = `function envoy_on_response(handle)
  local headers = handle:headers()
  if headers:get(":status") == "200" then
    headers:replace(":status", "204")
  end
end
`;

/** The two filters, in this order, between the bearer filter and jwt_authn. */
export function corsFilters(): JsonObject[] {
  return [
    {
      name: preflightFilterName,
      // No default code: the filter does nothing on a route that does not name its script.
      typed_config: {
        "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua",
        source_codes: { [preflightScript]: { inline_string: preflightSource } },
      },
    },
    {
      name: corsFilterName,
      typed_config: { "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors" },
    },
  ];
}

/** The header_mutation filter's response mutation: every answer varies with Origin. */
export const varyOnOrigin: JsonObject = {
  append: { header: { key: "vary", value: "Origin" }, append_action: "APPEND_IF_EXISTS_OR_ADD" },
};

/** The virtual host's `typed_per_filter_config`: the policy of every route. */
export function corsVirtualHostConfig(cors: EnvoyCors): JsonObject {
  const { allowedOrigins, allowedHeaders, maxAgeSeconds } = cors;
  return {
    [corsFilterName]: {
      "@type": corsPolicyType,
      // An exact "*" is the filter's own wildcard: any origin, named in the answer.
      allow_origin_string_match:
        typeof allowedOrigins === "string"
          ? allowedOrigins
          : allowedOrigins.map((origin) => ({ exact: origin })),
      allow_headers:
        typeof allowedHeaders === "string"
          ? `${corsRequestHeaders.join(", ")}${allowedHeaders}`
          : [...corsRequestHeaders, ...allowedHeaders].join(", "),
      expose_headers: corsExposedHeaders.join(", "),
      max_age: String(maxAgeSeconds),
      forward_not_matching_preflights: true,
    },
  };
}

/**
 * The `typed_per_filter_config` entries of a refusal route under /api/: the methods its path
 * allows (none for an unknown path), and the preflight filter's script.
 */
export function corsRefusalConfig(allow: readonly string[]): JsonObject {
  return {
    ...(allow.length === 0
      ? {}
      : { [corsFilterName]: { "@type": corsPolicyType, allow_methods: allow.join(", ") } }),
    [preflightFilterName]: {
      "@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.LuaPerRoute",
      name: preflightScript,
    },
  };
}
