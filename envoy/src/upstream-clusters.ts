/**
 * One upstream cluster per deployed service: gRPC over HTTP/2 cleartext, actively health
 * checked with the standard gRPC health service, so a service that is not ready gets no traffic
 * (503 at once) instead of a connection that fails.
 */
import type { DescService, JsonObject } from "@bufbuild/protobuf";
import type { HostPort } from "./envoy-options.js";

const protocolOptionsType = "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions";

export function upstreamCluster(
  name: string,
  endpoints: readonly HostPort[],
  services: readonly DescService[],
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
