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
 *     lifetime (its launcher stops it when the caller's end of its stdin closes).
 *
 * Traces live in memory: a restart forgets them.
 */
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { adoptRunning, launchDetached, type DetachedServer } from "./detached-server.js";
import type { InfraComponent } from "./infra-component.js";
import { InfraConfigError, readPort, type InfraConfig } from "./infra-config.js";
import { ensureJaeger } from "./jaeger-build.js";
import { jaegerConfig, type JaegerPorts } from "./jaeger-config.js";
import {
  freePort,
  runWhileStdinOpen,
  startDetached,
  stopDetached,
  superviseChild,
  tailOf,
  waitUntil,
} from "./processes.js";

/** It starts in about a second; more on a busy box. */
const startTimeoutMs = 30_000;
/** It drains its batch and closes its listeners on SIGTERM. */
const stopGraceMs = 10_000;
/** What identifies our server in a process listing (`readLivePid`): the cached binary's path. */
const processSignature = "jaeger";

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

/** Writes the configuration into `dir` and returns the arguments that start Jaeger with it. */
async function prepareJaeger(dir: string, ports: JaegerPorts): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const configFile = join(dir, "config.yaml");
  await writeFile(configFile, jaegerConfig(ports));
  return ["--config", `file:${configFile}`];
}

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
  const dir = join(config.stateDir, "jaeger");
  const pidFile = join(dir, "jaeger.pid");
  const logFile = join(dir, "jaeger.log");
  const endpoints = jaegerEndpoints(ports);
  const server: DetachedServer = {
    title: "Jaeger",
    address: endpoints.otlpHttpEndpoint,
    pidFile,
    processSignature,
    logFile,
    startTimeoutMs,
    probeIntervalMs: 100,
    answers: () => jaegerAnswers(endpoints),
  };

  return {
    name: "jaeger",

    async up() {
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoints.otlpHttpEndpoint,
        JAEGER_QUERY_URL: endpoints.queryUrl,
      };
      if (await adoptRunning(server, log)) return env;
      const binary = await ensureJaeger({ log });
      await launchDetached(
        server,
        {
          start: async () =>
            startDetached({
              command: binary,
              args: await prepareJaeger(dir, ports),
              logFile,
              pidFile,
            }),
          describe: (pid, seconds) =>
            `started (pid ${pid}) in ${seconds} s: OTLP at ${endpoints.otlpHttpEndpoint} (HTTP) and ` +
            `${endpoints.otlpGrpcEndpoint} (gRPC), query API and UI at ${endpoints.queryUrl}, ` +
            `metrics at ${endpoints.metricsUrl}`,
        },
        log,
      );
      return env;
    },

    down: () => stopDetached(pidFile, processSignature, stopGraceMs, log),
  };
}

/** A private instance for one test run (see `startJaeger`). */
export interface JaegerOptions {
  /** Its configuration and log go here; created if missing. */
  readonly dataDir: string;
  /** Build progress; defaults to stderr. */
  readonly log?: (message: string) => void;
}

export interface JaegerInstance extends JaegerEndpoints {
  readonly pid: number;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. */
  stop(): Promise<void>;
}

async function freePorts(): Promise<JaegerPorts> {
  const ports = new Set<number>();
  while (ports.size < 6) ports.add(await freePort());
  const [otlpHttp, otlpGrpc, query, queryGrpc, health, metrics] = [...ports] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { otlpHttp, otlpGrpc, query, queryGrpc, health, metrics };
}

/**
 * Starts a private Jaeger and resolves once its health check and query API answer.
 *
 * Ports: Jaeger cannot report ports it picked itself, so free ones are found first by binding
 * port 0; if another process takes one in between, the start is retried on new ones.
 *
 * The instance cannot outlive the caller: its launcher stops it when its stdin reaches end of
 * file, which happens when the caller exits, even on a crash. Its handles are unref'd, so
 * forgetting `stop()` does not keep the caller alive either.
 */
export async function startJaeger(options: JaegerOptions): Promise<JaegerInstance> {
  const log = options.log ?? ((message: string) => process.stderr.write(`jaeger: ${message}\n`));
  const binary = await ensureJaeger({ log });
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launch(binary, options.dataDir, await freePorts());
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes("address already in use");
      if (!portTaken || attempt >= 3) throw error;
      log("a port was taken before Jaeger bound it, retrying on other ports");
    }
  }
}

async function launch(binary: string, dir: string, ports: JaegerPorts): Promise<JaegerInstance> {
  const args = await prepareJaeger(dir, ports);
  const logFile = join(dir, "jaeger.log");
  const endpoints = jaegerEndpoints(ports);
  // Its log goes to a file: the launcher's stdout and stderr are the only pipes we keep.
  const child = spawn(
    runWhileStdinOpen,
    ["sh", "-c", 'exec "$0" "$@" >>"$JAEGER_LOG" 2>&1', binary, ...args],
    {
      stdio: ["pipe", "ignore", "pipe"],
      env: { ...process.env, JAEGER_LOG: logFile },
    },
  );
  let stderrTail = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4_000);
  });
  const supervised = superviseChild(child, stopGraceMs);
  const { exited, spawnFailed, stop } = supervised;

  const describeFailure = async (why: string) => {
    const tail = [await tailOf(logFile, 20), stderrTail.trimEnd()].filter((text) => text !== "").join("\n");
    return new Error(`Jaeger (${logFile}) ${why}${tail === "" ? "" : `:\n${tail}`}`);
  };

  try {
    const ready = await Promise.race([
      waitUntil(() => jaegerAnswers(endpoints), {
        timeoutMs: startTimeoutMs,
        intervalMs: 100,
        abort: exited,
      }),
      spawnFailed,
    ]);
    const exit = supervised.exit();
    if (!ready || exit !== undefined) {
      throw await describeFailure(
        exit === undefined
          ? `does not answer at ${endpoints.healthUrl} after ${startTimeoutMs / 1000} s`
          : `exited before it was ready (${exit.code ?? exit.signal ?? "unknown"})`,
      );
    }
    const pid = child.pid;
    if (pid === undefined) throw await describeFailure("has no pid");

    supervised.release();
    return { ...endpoints, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
