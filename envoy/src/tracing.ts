/**
 * Envoy's OpenTelemetry tracer (ADR 0068): with a collector configured,
 * the edge starts a span per request, or continues the one of an incoming W3C `traceparent`, and
 * sends the `traceparent` on to the services; spans go out as OTLP over plain HTTP, like the
 * services' (`OTEL_EXPORTER_OTLP_ENDPOINT`, `http/protobuf`). Without one, no tracing at all.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { EnvoyOptionsError } from "./envoy-options.js";

/** The edge's `service.name`, as the services name theirs (`commerce-<name>`). */
export const edgeServiceName = "commerce-edge";

const collectorCluster = "opentelemetry_collector";

/** Where the tracer sends spans. */
export interface OtlpExport {
  /** `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  readonly tracesUrl: string;
  /** The collector's address; a string port is a placeholder that the Helm chart fills in. */
  readonly address: { readonly host: string; readonly port: number | string };
  /**
   * The share of requests without a caller's decision that start a sampled trace, in percent:
   * the platform's sampling ratio (`edgeSamplePercent`), so the edge samples as the services
   * would; a string is the chart's placeholder.
   */
  readonly samplePercent: number | string;
}

/**
 * The edge's sampling percentage from the services' `OTEL_TRACES_SAMPLER` and
 * `OTEL_TRACES_SAMPLER_ARG`: the ratio of a `…traceidratio` sampler, none for `…always_off`, all
 * otherwise. Envoy decides first and passes its decision on in `traceparent`, which the services'
 * parent-based samplers follow: at 100 % the services' ratio would never apply.
 */
export function edgeSamplePercent(telemetry: Readonly<Record<string, string>>): number {
  const sampler = telemetry["OTEL_TRACES_SAMPLER"] ?? "parentbased_always_on";
  if (sampler.endsWith("always_off")) return 0;
  if (!sampler.endsWith("traceidratio")) return 100;
  const ratio = Number(telemetry["OTEL_TRACES_SAMPLER_ARG"] ?? "1");
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio * 100 : 100;
}

/**
 * The export of an OTLP/HTTP base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`'s form: spans go to
 * `/v1/traces` under it). Plain `http:` only: the tracer's cluster has no TLS.
 */
export function otlpExportOf(endpoint: string, samplePercent: number | string = 100): OtlpExport {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new EnvoyOptionsError(`the OTLP endpoint must be an http:// URL, got "${endpoint}"`);
  }
  if (url.protocol !== "http:" || url.search !== "" || url.hash !== "") {
    throw new EnvoyOptionsError(`the OTLP endpoint must be an http:// URL without query, got "${endpoint}"`);
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  return {
    tracesUrl: `${base}/v1/traces`,
    address: { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(url.port || 80) },
    samplePercent,
  };
}

/** The HTTP connection manager's `tracing`. */
export function tracingConfig(otlp: OtlpExport): JsonObject {
  return {
    provider: {
      name: "envoy.tracers.opentelemetry",
      typed_config: {
        "@type": "type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig",
        http_service: {
          http_uri: { uri: otlp.tracesUrl, cluster: collectorCluster, timeout: "2s" },
        },
        service_name: edgeServiceName,
      },
    },
    // The platform's ratio of the requests that start a trace here; an incoming `traceparent`
    // keeps its own decision.
    random_sampling: { value: otlp.samplePercent },
  };
}

/**
 * How many finished spans Envoy's tracer gathers before it sends them: its default is 5, a POST
 * to the collector for every fifth sampled request, which cost the edge more than the spans
 * themselves (ADR 0068). As the services' batch processor does, it sends
 * up to this many at once, and what is gathered at least every 5 s
 * (`tracing.opentelemetry.flush_interval_ms`, left at its default).
 */
export const edgeSpanBatch = 512;

/**
 * Envoy's runtime when it traces: a static layer with the tracer's batch size, then the admin
 * layer that Envoy has by default (a bootstrap that names layers replaces the default ones).
 */
export function tracingRuntime(): JsonObject {
  return {
    layers: [
      { name: "tracing", static_layer: { "tracing.opentelemetry.min_flush_spans": edgeSpanBatch } },
      { name: "admin", admin_layer: {} },
    ],
  };
}

/** The cluster of the collector that receives the spans (HTTP/1.1, as OTLP/HTTP is served). */
export function collectorClusterConfig(otlp: OtlpExport): JsonObject {
  return {
    name: collectorCluster,
    type: "STRICT_DNS",
    dns_lookup_family: "V4_PREFERRED",
    connect_timeout: "2s",
    load_assignment: {
      cluster_name: collectorCluster,
      endpoints: [
        {
          lb_endpoints: [
            {
              endpoint: {
                address: { socket_address: { address: otlp.address.host, port_value: otlp.address.port } },
              },
            },
          ],
        },
      ],
    },
  };
}
