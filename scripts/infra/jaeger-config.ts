/**
 * The configuration of our Jaeger v2 (an OpenTelemetry Collector distribution), written by us for
 * each start: OTLP in over gRPC and HTTP, traces into Jaeger's in-memory store behind its query
 * API, metrics out as Prometheus text, so a test can read back both signals the services export.
 *
 * The file is JSON, which the collector's YAML reader accepts as it is.
 */

/** The loopback ports of one instance. */
export interface JaegerPorts {
  /** OTLP over HTTP (the SDKs' default protocol; 4318 by convention). */
  readonly otlpHttp: number;
  /** OTLP over gRPC (4317 by convention; Envoy's tracer uses it). */
  readonly otlpGrpc: number;
  /** The query API (`/api/traces`, `/api/v3/traces`) and the UI's address (16686 by convention). */
  readonly query: number;
  /**
   * The gRPC query API: unused by us, but it always listens (by default on every interface at
   * 16685), so it gets a loopback port of its own.
   */
  readonly queryGrpc: number;
  /** The health check (`/status`), which answers 200 once every pipeline runs. */
  readonly health: number;
  /** The Prometheus exporter (`/metrics`) of the metrics the services send. */
  readonly metrics: number;
}

/**
 * Traces stay in memory up to this many, then the oldest go: a backend for tests and a developer's
 * session, never storage.
 */
const maxTraces = 100_000;
/**
 * How long the batch processor holds spans before it stores them: short, so a test finds a span
 * well within a second of its export.
 */
const batchTimeout = "200ms";

export function jaegerConfig(ports: JaegerPorts): string {
  const at = (port: number) => `127.0.0.1:${port}`;
  const config = {
    service: {
      extensions: ["jaeger_storage", "jaeger_query", "healthcheckv2"],
      pipelines: {
        traces: { receivers: ["otlp"], processors: ["batch"], exporters: ["jaeger_storage_exporter"] },
        metrics: { receivers: ["otlp"], exporters: ["prometheus"] },
      },
      // Jaeger's own metrics would take another port (8888): not needed.
      telemetry: { metrics: { level: "none" }, logs: { level: "info" } },
    },
    extensions: {
      healthcheckv2: { use_v2: true, http: { endpoint: at(ports.health) } },
      jaeger_query: {
        storage: { traces: "memory" },
        // Jaeger would trace its own queries into localhost:4317 (its SDK's default), by default.
        enable_tracing: false,
        http: { endpoint: at(ports.query) },
        grpc: { endpoint: at(ports.queryGrpc) },
      },
      jaeger_storage: { backends: { memory: { memory: { max_traces: maxTraces } } } },
    },
    receivers: {
      otlp: { protocols: { grpc: { endpoint: at(ports.otlpGrpc) }, http: { endpoint: at(ports.otlpHttp) } } },
    },
    processors: { batch: { timeout: batchTimeout } },
    exporters: {
      jaeger_storage_exporter: { trace_storage: "memory" },
      prometheus: { endpoint: at(ports.metrics) },
    },
  };
  return `${JSON.stringify(config, undefined, 2)}\n`;
}
