/**
 * One upstream cluster per deployed service: gRPC over HTTP/2 cleartext, actively health
 * checked with the standard gRPC health service, so a service that is not ready gets no traffic
 * (503 at once) instead of a connection that fails. A service's cluster presents the edge's
 * credential for that service in `x-commerce-edge-auth` on every request (ADR 0106): an
 * upstream HTTP filter of the cluster (credential_injector, which Envoy 1.40 accepts there),
 * overwriting whatever the request held, so no other service ever receives it. Health checks
 * do not pass through upstream filters and carry none.
 */
import type { DescService, JsonObject } from "@bufbuild/protobuf";
import type { HostPort } from "./envoy-options.js";
import { typed } from "./typed-config.js";

const protocolOptionsType = "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions";

/** The upstream filters that add the credential held in the generic secret `secret`. */
function credentialFilters(secret: string): JsonObject[] {
  return [
    {
      name: "envoy.filters.http.credential_injector",
      typed_config: typed("envoy.extensions.filters.http.credential_injector.v3.CredentialInjector", {
        overwrite: true,
        credential: {
          name: "envoy.http.injected_credentials.generic",
          typed_config: typed("envoy.extensions.http.injected_credentials.generic.v3.Generic", {
            credential: { name: secret },
            header: "x-commerce-edge-auth",
          }),
        },
      }),
    },
    // The last upstream filter must be the codec, which writes the request to the connection.
    {
      name: "envoy.filters.http.upstream_codec",
      typed_config: typed("envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec", {}),
    },
  ];
}

/** `credentialSecret`: the generic secret of the edge's credential for it; none for the site. */
export function upstreamCluster(
  name: string,
  endpoints: readonly HostPort[],
  services: readonly DescService[],
  credentialSecret: string | undefined,
): JsonObject {
  // A service's own name asks about that service; with several, the empty name asks the server.
  const healthName = services.length === 1 ? (services[0]?.typeName ?? "") : "";
  return {
    name,
    type: "STRICT_DNS",
    dns_lookup_family: "V4_PREFERRED",
    connect_timeout: "2s",
    typed_extension_protocol_options: {
      "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
        "@type": protocolOptionsType,
        explicit_http_config: { http2_protocol_options: {} },
        ...(credentialSecret === undefined ? {} : { http_filters: credentialFilters(credentialSecret) }),
      },
    },
    load_assignment: {
      cluster_name: name,
      endpoints: [
        {
          lb_endpoints: endpoints.map((address) => ({
            endpoint: { address: { socket_address: { address: address.host, port_value: address.port } } },
          })),
        },
      ],
    },
    health_checks: [
      {
        timeout: "1s",
        interval: "5s",
        no_traffic_interval: "5s",
        unhealthy_threshold: 2,
        healthy_threshold: 1,
        grpc_health_check: { service_name: healthName },
      },
    ],
    // Without this, Envoy sends traffic to unhealthy hosts once most are unhealthy ("panic"),
    // which for one host means always: the health check would change nothing.
    common_lb_config: { healthy_panic_threshold: { value: 0 } },
  };
}
