/**
 * Jaeger v2 on loopback, the OTLP backend that receives the platform's traces and metrics
 * (ADR 0067); built by jaeger-build.ts, configured by jaeger-config.ts.
 *
 * Two ways in, as for FerretDB, Kafka and ClickHouse:
 *   - `createJaegerComponent`: the shared instance of `npm run infra:up`, detached, on fixed
 *     ports (`JAEGER_OTLP_PORT` 4318, `JAEGER_OTLP_GRPC_PORT` 4317, `JAEGER_QUERY_PORT` 16686,
 *     `JAEGER_QUERY_GRPC_PORT` 16685, `JAEGER_HEALTH_PORT` 13133, `JAEGER_METRICS_PORT` 8889),
 *     state under `<repo>/.infra/jaeger`;
 *   - `startJaeger`: a private instance for one test run on free ports, tied to the caller's
 *     lifetime (private-server.ts).
 *
 * Traces live in memory: a restart forgets them.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInfraComponent, type InfraComponent } from "./infra-component.js";
import { InfraConfigError, readPort, type InfraConfig } from "./infra-config.js";
import { ensureJaeger } from "./jaeger-build.js";
import { jaegerConfig, type JaegerPorts } from "./jaeger-config.js";
import { whileStdinOpen, type LaunchedServer, type LocalServer } from "./local-server.js";
import { startPrivateServer, type PrivateServerOptions } from "./private-server.js";

/** Where an instance is reached. */
export interface JaegerEndpoints {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT` for OTLP/HTTP. */
  readonly otlpHttpEndpoint: string;
  /** `127.0.0.1:<port>`: OTLP over gRPC (Envoy's tracer). */
  readonly otlpGrpcEndpoint: string;
  /** `http://127.0.0.1:<port>`: the query API and the UI's address. */
  readonly queryUrl: string;
  /** `http://127.0.0.1:<port>/metrics`: the metrics received, as Prometheus text. */
  readonly metricsUrl: string;
  /** `http://127.0.0.1:<port>/status`: 200 once it runs. */
  readonly healthUrl: string;
}

export function jaegerEndpoints(ports: JaegerPorts): JaegerEndpoints {
  const at = (port: number) => `http://127.0.0.1:${port}`;
  return {
    otlpHttpEndpoint: at(ports.otlpHttp),
    otlpGrpcEndpoint: `127.0.0.1:${ports.otlpGrpc}`,
    queryUrl: at(ports.query),
    metricsUrl: `${at(ports.metrics)}/metrics`,
    healthUrl: `${at(ports.health)}/status`,
  };
}

/** True when the health check says the pipelines run and the query API answers. */
export async function jaegerAnswers(endpoints: JaegerEndpoints, timeoutMs = 1_000): Promise<boolean> {
  try {
    for (const url of [endpoints.healthUrl, `${endpoints.queryUrl}/api/services`]) {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      await response.arrayBuffer();
      if (response.status !== 200) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Jaeger for the shared lifecycle; the installed form is the cached binary. */
const jaegerServer: LocalServer<string, keyof JaegerPorts> = {
  name: "jaeger",
  title: "Jaeger",
  portNames: ["otlpHttp", "otlpGrpc", "query", "queryGrpc", "health", "metrics"],
  // It starts in about a second; more on a busy box.
  startTimeoutMs: 30_000,
  // It drains its batch and closes its listeners on SIGTERM.
  stopGraceMs: 10_000,
  probeIntervalMs: 100,
  // The cached binary's path.
  processSignature: "jaeger",
  install: (log) => ensureJaeger({ log }),
  async prepare(binary, dir, ports, withStarter) {
    const configFile = join(dir, "config.yaml");
    await writeFile(configFile, jaegerConfig(ports));
    const server = { command: binary, args: ["--config", `file:${configFile}`] };
    return withStarter ? whileStdinOpen(server) : server;
  },
  address: (ports) => jaegerEndpoints(ports).otlpHttpEndpoint,
  answers: (ports) => jaegerAnswers(jaegerEndpoints(ports)),
  env(ports) {
    const endpoints = jaegerEndpoints(ports);
    return { OTEL_EXPORTER_OTLP_ENDPOINT: endpoints.otlpHttpEndpoint, JAEGER_QUERY_URL: endpoints.queryUrl };
  },
  describe(_binary, _dir, ports) {
    const endpoints = jaegerEndpoints(ports);
    return (
      `OTLP at ${endpoints.otlpHttpEndpoint} (HTTP) and ${endpoints.otlpGrpcEndpoint} (gRPC), ` +
      `query API and UI at ${endpoints.queryUrl}, metrics at ${endpoints.metricsUrl}`
    );
  },
};

/** Reads and checks the Jaeger ports of `infra:up` once, at start. */
export function readJaegerPorts(env: NodeJS.ProcessEnv): JaegerPorts {
  const ports: JaegerPorts = {
    otlpHttp: readPort(env, "JAEGER_OTLP_PORT", 4318),
    otlpGrpc: readPort(env, "JAEGER_OTLP_GRPC_PORT", 4317),
    query: readPort(env, "JAEGER_QUERY_PORT", 16686),
    queryGrpc: readPort(env, "JAEGER_QUERY_GRPC_PORT", 16685),
    health: readPort(env, "JAEGER_HEALTH_PORT", 13133),
    metrics: readPort(env, "JAEGER_METRICS_PORT", 8889),
  };
  if (new Set(Object.values(ports)).size !== Object.values(ports).length) {
    throw new InfraConfigError(
      `the JAEGER_*_PORT variables must name six different ports, got ${JSON.stringify(ports)}`,
    );
  }
  return ports;
}

/** The shared instance behind `npm run infra:up` / `infra:down`. */
export function createJaegerComponent(
  config: InfraConfig,
  ports: JaegerPorts,
  log: (message: string) => void,
): InfraComponent {
  return createInfraComponent(jaegerServer, config.stateDir, ports, log);
}

/** A private instance for one test run (see `startJaeger`); its data directory holds no data. */
export type JaegerOptions = PrivateServerOptions;

export interface JaegerInstance extends JaegerEndpoints, LaunchedServer {}

/** Starts a private Jaeger and resolves once its health check and query API answer. */
export async function startJaeger(options: JaegerOptions): Promise<JaegerInstance> {
  const { ports, pid, stop } = await startPrivateServer(jaegerServer, options);
  return { ...jaegerEndpoints(ports), pid, stop };
}
