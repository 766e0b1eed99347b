/**
 * The whole Envoy configuration of the REST edge, rendered from the contract and the options
 * (envoy/README.md says what it expects at run time). Filter order, and why:
 *   1. header_mutation   drops what only the edge may set: client-sent identity headers, our
 *                        credential headers, the client's address, every x-envoy-* header
 *                        (Envoy obeys some); says `Vary: Origin` on every answer;
 *   2. bearer (Lua)      spells the bearer scheme the way jwt_authn matches it (on the routes
 *                        that verify a token: off on the others);
 *   3. preflight (Lua), cors   CORS (cors.ts), before anything that could refuse a preflight;
 *   4. jwt_authn         HS512 tokens with `exp`, on the routes whose method is not public;
 *                        `sub` → x-user-email, `role` → x-user-role, `uid` → x-user-id;
 *   5. buffer            the 1 MiB body limit (413);
 *   6. REST (Lua)        token, query, path and body checks; on the way back success status,
 *                        bare arrays and the error body. It sits before the transcoder so that
 *                        it sees JSON in both directions. A request with nothing to check runs
 *                        only its response side (rest-routes.ts);
 *   7. grpc_json_transcoder   REST ⇄ gRPC;
 *   8. router.
 * Each routed service's cluster adds the edge's credential for that service alone
 * (`x-commerce-edge-auth`, from a file) in an upstream filter of its own (upstream-clusters.ts).
 * With a collector configured, the connection manager traces every request (tracing.ts).
 * Routes: the edge's probes, the public site's paths to the `web` deployable when it is given
 * (site-routes.ts, where the filters of the API step aside), then the API (rest-routes.ts).
 */
import type { DescService, JsonObject } from "@bufbuild/protobuf";
import { stringify } from "yaml";
import { noCors } from "@commerce/edge";
import { createRouteTable, type Route } from "@commerce/edge/rest-mapping";
import type { Contract } from "../../scripts/codegen/contract-descriptors.js";
import { corsFilters, corsVirtualHostConfig, varyOnOrigin } from "./cors.js";
import { deploymentOf } from "../../scripts/codegen/contract-descriptors.js";
import { siteDeployment, validateEnvoyOptions, type EnvoyOptions, type HostPort } from "./envoy-options.js";
import { clientAddressHeader } from "@commerce/runtime/identity";
import { maxRequestHeadBytes, maxRequestHeaderCount } from "@commerce/runtime/server";
import { localReplyConfig, maxRequestBytes } from "./local-replies.js";
import { queryMethodRefusals } from "./query-refusals.js";
import { bearerFilterSource, restFilterSources } from "./lua-source.js";
import { messageSchemas } from "./request-schema.js";
import {
  bearerFilterName,
  bearerRequirement,
  restFilterName,
  restRoutes,
  shapedScript,
} from "./rest-routes.js";
import { appPageRoutes, siteRoutes } from "./site-routes.js";
import { collectorClusterConfig, tracingConfig, tracingRuntime } from "./tracing.js";
import { typed } from "./typed-config.js";
import { upstreamCluster } from "./upstream-clusters.js";

/** The generic secret that holds the edge's credential for `service` (read from a file). */
const edgeCredentialSecret = (service: string): string => `edge-credential-${service}`;
const jwtProvider = "commerce";
/** Where jwt_authn leaves the verified claims; rest-filter.lua reads them under this key. */
const jwtPayloadKey = "jwt_payload";

function socketAddress(address: HostPort): JsonObject {
  return { socket_address: { address: address.host, port_value: address.port } };
}

/** A Lua filter running `source` on every route, and the `named` scripts on the routes naming them. */
function luaFilter(name: string, source: string, named: Record<string, string> = {}): JsonObject {
  const sourceCodes = Object.fromEntries(
    Object.entries(named).map(([script, code]) => [script, { inline_string: code }]),
  );
  return {
    name,
    typed_config: typed("envoy.extensions.filters.http.lua.v3.Lua", {
      default_source_code: { inline_string: source },
      ...(Object.keys(sourceCodes).length === 0 ? {} : { source_codes: sourceCodes }),
    }),
  };
}

/** The JSON probes of the edge itself, answered as the local edge answers them. */
function probeRoute(path: string, status: string): JsonObject {
  return {
    name: path,
    match: { path },
    direct_response: { status: 200, body: { inline_string: JSON.stringify({ status }) } },
    response_headers_to_add: [
      {
        header: { key: "content-type", value: "application/json" },
        append_action: "OVERWRITE_IF_EXISTS_OR_ADD",
      },
    ],
  };
}

function restFilter(routes: readonly Route[]): JsonObject {
  const { checked, shaped } = restFilterSources(messageSchemas(routes));
  return luaFilter(restFilterName, checked, { [shapedScript]: shaped });
}

function httpFilters(
  options: EnvoyOptions,
  deployed: readonly DescService[],
  routes: readonly Route[],
): JsonObject[] {
  return [
    {
      name: "envoy.filters.http.header_mutation",
      typed_config: typed("envoy.extensions.filters.http.header_mutation.v3.HeaderMutation", {
        mutations: {
          request_mutations: [
            ...[
              "x-user-email",
              "x-user-role",
              "x-user-id",
              clientAddressHeader,
              "x-commerce-edge-auth",
              "x-commerce-peer-auth",
            ].map((name) => ({ remove: name })),
            { remove_on_match: { key_matcher: { prefix: "x-envoy-" } } },
          ],
          response_mutations: [varyOnOrigin],
        },
      }),
    },
    luaFilter(bearerFilterName, bearerFilterSource()),
    ...corsFilters(),
    {
      name: "envoy.filters.http.jwt_authn",
      typed_config: typed("envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication", {
        providers: {
          [jwtProvider]: {
            local_jwks: { filename: options.jwksPath },
            require_expiration: true,
            // For the REST filter, which checks `exp` and `nbf` to the second as the local
            // edge does (jwt_authn allows at least a second of clock skew, 60 by default).
            payload_in_metadata: jwtPayloadKey,
            from_headers: [{ name: "authorization", value_prefix: "Bearer " }],
            claim_to_headers: [
              { header_name: "x-user-email", claim_name: "sub" },
              { header_name: "x-user-role", claim_name: "role" },
              { header_name: "x-user-id", claim_name: "uid" },
            ],
          },
        },
        requirement_map: { [bearerRequirement]: { provider_name: jwtProvider } },
      }),
    },
    {
      name: "envoy.filters.http.buffer",
      typed_config: typed("envoy.extensions.filters.http.buffer.v3.Buffer", {
        max_request_bytes: maxRequestBytes,
      }),
    },
    restFilter(routes),
    {
      name: "envoy.filters.http.grpc_json_transcoder",
      typed_config: typed("envoy.extensions.filters.http.grpc_json_transcoder.v3.GrpcJsonTranscoder", {
        proto_descriptor: options.descriptorPath,
        services: deployed.map((service) => service.typeName),
        // Routes match the REST request (so only the bound templates route anywhere).
        match_incoming_request_route: true,
        convert_grpc_status: true,
        print_options: { always_print_primitive_fields: true },
        request_validation_options: { reject_unknown_query_parameters: true },
        // Read parameters as the local edge does: '+' is a space, every escape is decoded.
        query_param_unescape_plus: true,
        url_unescape_spec: "ALL_CHARACTERS",
      }),
    },
    {
      name: "envoy.filters.http.router",
      typed_config: typed("envoy.extensions.filters.http.router.v3.Router", { suppress_envoy_headers: true }),
    },
  ];
}

/** The configuration as a plain object (the shape of Envoy's bootstrap). */
export function renderEnvoyConfig(contract: Contract, options: EnvoyOptions): JsonObject {
  validateEnvoyOptions(options, [...contract.deployments.keys(), siteDeployment]);
  const deployed = [...options.upstreams.keys()].flatMap((name) => contract.deployments.get(name) ?? []);
  const routeTable = createRouteTable(deployed);
  // Every upstream but the public site is a service, which gets the edge's credential for it.
  const services = [...options.upstreams.keys()].filter((name) => name !== siteDeployment);
  const clusters = [...options.upstreams.entries()].map(([name, endpoints]) =>
    upstreamCluster(
      name,
      endpoints,
      contract.deployments.get(name) ?? [],
      services.includes(name) ? edgeCredentialSecret(name) : undefined,
    ),
  );
  if (options.otlp !== undefined) clusters.push(collectorClusterConfig(options.otlp));
  return {
    admin: { address: socketAddress(options.admin) },
    ...(options.otlp === undefined ? {} : { layered_runtime: tracingRuntime() }),
    static_resources: {
      secrets: services.map((name) => ({
        name: edgeCredentialSecret(name),
        generic_secret: { secret: { filename: `${options.edgeCredentialsDir}/${name}` } },
      })),
      listeners: [
        {
          name: "rest",
          address: socketAddress(options.listen),
          filter_chains: [
            {
              filters: [
                {
                  name: "envoy.filters.network.http_connection_manager",
                  typed_config: typed(
                    "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                    {
                      stat_prefix: "rest",
                      // The edge faces clients: their address is the peer's, never a header's.
                      use_remote_address: true,
                      // `/api/../commerce.x.v1.Internal/Method` must not become a route.
                      normalize_path: true,
                      merge_slashes: true,
                      server_header_transformation: "PASS_THROUGH",
                      // The local edge's limits (protocol-refusals.ts), so both refuse alike.
                      max_request_headers_kb: maxRequestHeadBytes / 1024,
                      common_http_protocol_options: { max_headers_count: maxRequestHeaderCount },
                      local_reply_config: localReplyConfig(queryMethodRefusals(routeTable.routes)),
                      ...(options.otlp === undefined ? {} : { tracing: tracingConfig(options.otlp) }),
                      route_config: {
                        name: "rest",
                        virtual_hosts: [
                          {
                            name: "rest",
                            domains: ["*"],
                            request_headers_to_remove: ["authorization"],
                            typed_per_filter_config: corsVirtualHostConfig(options.cors ?? noCors),
                            routes: [
                              probeRoute("/healthz", "ok"),
                              probeRoute("/readyz", "ready"),
                              ...(options.upstreams.has(siteDeployment) ? siteRoutes(siteDeployment) : []),
                              ...restRoutes(routeTable.routes, (route) => deploymentOf(route.service)),
                              ...(options.upstreams.has(siteDeployment) ? appPageRoutes(siteDeployment) : []),
                            ],
                          },
                        ],
                      },
                      http_filters: httpFilters(options, deployed, routeTable.routes),
                    },
                  ),
                },
              ],
            },
          ],
        },
      ],
      clusters,
    },
  };
}

const header = `# Generated by \`npm run envoy:config\` from proto/ (envoy/src): do not edit.
# What it expects at run time: envoy/README.md.
`;

export function renderEnvoyYaml(contract: Contract, options: EnvoyOptions): string {
  return (
    header + stringify(renderEnvoyConfig(contract, options), { lineWidth: 0, aliasDuplicateObjects: false })
  );
}
