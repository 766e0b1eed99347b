/**
 * ClickHouse 18.16 from Debian's package, the analytics store of our tests (ADR 0072:
 * real infrastructure on loopback, no containers). See clickhouse-runtime.ts for how the
 * package is fetched and cached without installing it, and clickhouse-server.ts for the
 * server's settings.
 *
 * Two ways in, as for FerretDB and Kafka:
 *   - `createClickHouseComponent`: the shared instance of `npm run infra:up`, detached, on a
 *     fixed port (`CLICKHOUSE_PORT`, default 18123), data under `<repo>/.infra/clickhouse/data`;
 *   - `startClickHouse`: a private instance for one test run, on a free port, tied to the
 *     caller's lifetime (its launcher stops it when the caller's end of its stdin closes).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import {
  clickHouseAnswers,
  clickHouseLogFile,
  clickHouseServerArgs,
  clickHouseUrlAt,
  prepareClickHouse,
} from "./clickhouse-server.js";
import { ensureClickHouseRuntime, type ClickHouseRuntime } from "./clickhouse-runtime.js";
import { adoptRunning, launchDetached, type DetachedServer } from "./detached-server.js";
import type { InfraComponent } from "./infra-component.js";
import { InfraConfigError, type InfraConfig } from "./infra-config.js";
import {
  freePort,
  runWhileStdinOpen,
  startDetached,
  stopDetached,
  superviseChild,
  tailOf,
  waitUntil,
} from "./processes.js";

/** ClickHouse answers within a second; more on a busy box. */
const startTimeoutMs = 30_000;
/** It flushes and stops its merges on SIGTERM: well under a second when idle. */
const stopGraceMs = 15_000;
/** What identifies our server in a process listing (`readLivePid`). */
const processSignature = "clickhouse-server";

/** The ClickHouse part of the infrastructure configuration, read once from the environment. */
export interface ClickHouseInfraConfig {
  /** HTTP port of the shared server (`CLICKHOUSE_PORT`, default 18123). */
  readonly port: number;
}

/** Reads and checks the ClickHouse settings of `infra:up` once, at start. */
export function readClickHouseInfraConfig(env: NodeJS.ProcessEnv): ClickHouseInfraConfig {
  const raw = env["CLICKHOUSE_PORT"];
  const port = raw === undefined || raw === "" ? 18123 : Number(raw);
  if (raw !== undefined && raw !== "" && (!/^\d+$/.test(raw) || port < 1 || port > 65535)) {
    throw new InfraConfigError(`CLICKHOUSE_PORT must be a TCP port between 1 and 65535, got "${raw}"`);
  }
  return { port };
}

/** The shared instance behind `npm run infra:up` / `infra:down`. */
export function createClickHouseComponent(
  config: InfraConfig,
  clickHouse: ClickHouseInfraConfig,
  log: (message: string) => void,
): InfraComponent {
  const dir = join(config.stateDir, "clickhouse");
  const pidFile = join(dir, "clickhouse.pid");
  const outputFile = join(dir, "clickhouse.out");
  const url = clickHouseUrlAt(clickHouse.port);
  const server: DetachedServer = {
    title: "ClickHouse",
    address: url,
    pidFile,
    processSignature,
    logFile: clickHouseLogFile(dir),
    startTimeoutMs,
    probeIntervalMs: 50,
    answers: () => clickHouseAnswers(url, 1_000),
  };

  return {
    name: "clickhouse",

    async up() {
      const env = { CLICKHOUSE_URL: url };
      if (await adoptRunning(server, log)) return env;
      const runtime = await ensureClickHouseRuntime({ log });
      await launchDetached(
        server,
        {
          async start() {
            const configFile = await prepareClickHouse({ dir, port: clickHouse.port });
            return startDetached({
              command: runtime.binary,
              args: clickHouseServerArgs(configFile),
              logFile: outputFile,
              pidFile,
              env: runtime.env,
            });
          },
          failureDetail: () => tailOf(outputFile, 5),
          describe: (pid, seconds) =>
            `ClickHouse ${runtime.version} started (pid ${pid}) at ${url} in ${seconds} s, data in ${dir}`,
        },
        log,
      );
      return env;
    },

    down: () => stopDetached(pidFile, processSignature, stopGraceMs, log),
  };
}

/** A private server for one test run (see `startClickHouse`). */
export interface ClickHouseOptions {
  /**
   * The instance's directory (created if missing): configuration, logs, and the data under
   * `data/`. A fresh directory gives an empty server; starting again on the same directory
   * brings back its tables.
   */
  readonly dataDir: string;
  /** HTTP port on 127.0.0.1; a free one by default. */
  readonly port?: number;
  /** Install progress; defaults to stderr. */
  readonly log?: (message: string) => void;
}

/** A running private server; the caller owns it and stops it. */
export interface ClickHouseInstance {
  /** `http://127.0.0.1:<port>`, the value of `CLICKHOUSE_URL`. */
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after a grace period; resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a private ClickHouse for one test run and resolves once it answers `/ping`.
 *
 * Ports: ClickHouse cannot report a port it picked itself, so a free one is found first by
 * binding port 0; if another process takes it in between, the start is retried on a new one.
 *
 * The instance cannot outlive the caller: its launcher stops the server when its stdin reaches
 * end of file, which happens when the caller exits, even on a crash. Its handles are unref'd,
 * so forgetting `stop()` does not keep the caller alive either.
 */
export async function startClickHouse(options: ClickHouseOptions): Promise<ClickHouseInstance> {
  const log = options.log ?? ((message: string) => process.stderr.write(`clickhouse: ${message}\n`));
  const runtime = await ensureClickHouseRuntime({ log });
  const attempts = options.port === undefined ? 3 : 1;
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await freePort());
    try {
      return await launch(runtime, options.dataDir, port);
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes("Address already in use");
      if (!portTaken || attempt >= attempts) throw error;
      log(`port ${port} was taken before the server bound it, retrying on another port`);
    }
  }
}

async function launch(runtime: ClickHouseRuntime, dir: string, port: number): Promise<ClickHouseInstance> {
  const configFile = await prepareClickHouse({ dir, port });
  const logFile = clickHouseLogFile(dir);
  const url = clickHouseUrlAt(port);
  const child = spawn(runWhileStdinOpen, [runtime.binary, ...clickHouseServerArgs(configFile)], {
    stdio: ["pipe", "ignore", "pipe"],
    env: { ...process.env, ...runtime.env },
  });
  let stderrTail = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4_000);
  });
  const supervised = superviseChild(child, stopGraceMs);
  const { exited, spawnFailed, stop } = supervised;

  const describeFailure = async (why: string) => {
    const tail = [await tailOf(logFile, 20), stderrTail.trimEnd()].filter((text) => text !== "").join("\n");
    return new Error(`ClickHouse (${logFile}) ${why}${tail === "" ? "" : `:\n${tail}`}`);
  };

  try {
    const ready = await Promise.race([
      waitUntil(() => clickHouseAnswers(url, 1_000), {
        timeoutMs: startTimeoutMs,
        intervalMs: 50,
        abort: exited,
      }),
      spawnFailed,
    ]);
    const exit = supervised.exit();
    if (!ready || exit !== undefined) {
      throw await describeFailure(
        exit === undefined
          ? `does not answer at ${url} after ${startTimeoutMs / 1000} s`
          : `exited before it was ready (${exit.code ?? exit.signal ?? "unknown"})`,
      );
    }
    const pid = child.pid;
    if (pid === undefined) throw await describeFailure("has no pid");

    supervised.release();
    return { url, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
