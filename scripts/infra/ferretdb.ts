/**
 * FerretDB 1.24 on SQLite, the MongoDB-compatible server of our tests (ADR 0072: real
 * infrastructure on loopback, no containers). Runs through our own launcher in ./ferretdb
 * (see its main.go for why we do not build FerretDB's own command).
 *
 * Two ways in:
 *   - `createFerretDbComponent`: the shared instance of `npm run infra:up`, detached, on a fixed
 *     port, data under `<repo>/.infra/ferretdb/data`;
 *   - `startFerretDb`: a private instance for one test run, on a port FerretDB picks, tied to
 *     the caller's lifetime (it exits when the caller's end of its stdin closes).
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";

import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { MongoClient } from "mongodb";
import { ensureArtifact, filesOf, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";
import { adoptRunning, launchDetached, type DetachedServer } from "./detached-server.js";
import type { InfraComponent } from "./infra-component.js";
import type { InfraConfig } from "./infra-config.js";
import { acceptsConnections, startDetached, stopDetached, superviseChild, waitUntil } from "./processes.js";

const launcherName = "ferretdb-launcher";
const launcherSource = join(import.meta.dirname, "ferretdb");
const startTimeoutMs = 30_000;
const stopGraceMs = 10_000;

/** The launcher's binary, built from ./ferretdb into the project's cache on first use. */
export async function ensureFerretDbLauncher(options: ArtifactOptions = {}): Promise<string> {
  const launcher = await ensureArtifact(
    {
      name: launcherName,
      inputs: await filesOf(launcherSource, ["main.go", "go.mod", "go.sum"]),
      build: async (dir) => {
        await runGo(["build", "-o", join(dir, launcherName), "."], { cwd: launcherSource });
      },
    },
    options,
  );
  return join(launcher.dir, launcherName);
}

/**
 * True when a MongoDB-compatible server at `url` answers `ping`. A plain TCP probe comes first:
 * while nothing listens yet it fails at once, where the driver would wait for its server
 * selection timeout, so readiness polling stays fast.
 */
export async function pingMongo(url: string, timeoutMs = 2_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  if (!(await acceptsConnections(hostname, Number(port || 27017)))) return false;
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    const reply = await client.db("admin").command({ ping: 1 });
    return reply["ok"] === 1;
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

/** The shared instance behind `npm run infra:up` / `infra:down`. */
export function createFerretDbComponent(config: InfraConfig, log: (message: string) => void): InfraComponent {
  const dir = join(config.stateDir, "ferretdb");
  const dataDir = join(dir, "data");
  const pidFile = join(dir, "ferretdb.pid");
  const logFile = join(dir, "ferretdb.log");
  const url = `mongodb://127.0.0.1:${config.ferretDbPort}/`;
  const server: DetachedServer = {
    title: "FerretDB",
    address: url,
    pidFile,
    processSignature: launcherName,
    logFile,
    startTimeoutMs,
    probeIntervalMs: 50,
    answers: () => pingMongo(url, 1_000),
  };

  return {
    name: "ferretdb",

    async up() {
      const env = { MONGODB_URL: url };
      if (await adoptRunning(server, log)) return env;
      await mkdir(dataDir, { recursive: true });
      const binary = await ensureFerretDbLauncher({ log });
      await launchDetached(
        server,
        {
          start: () =>
            startDetached({
              command: binary,
              args: ["-listen-addr", `127.0.0.1:${config.ferretDbPort}`, "-sqlite-dir", dataDir],
              logFile,
              pidFile,
            }),
          describe: (pid, seconds) => `started (pid ${pid}) at ${url} in ${seconds} s, data in ${dataDir}`,
        },
        log,
      );
      return env;
    },

    down: () => stopDetached(pidFile, launcherName, stopGraceMs, log),
  };
}

export interface FerretDbOptions {
  /** SQLite directory; created if missing. A fresh temporary directory gives an empty server. */
  readonly dataDir: string;
  /** Loopback port; 0 (the default) lets FerretDB take a free one and report it. */
  readonly port?: number;
  /** Build progress; defaults to stderr. */
  readonly log?: (message: string) => void;
}

export interface FerretDbInstance {
  /** `mongodb://127.0.0.1:<port>/` */
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. */
  stop(): Promise<void>;
}

/**
 * Starts a private FerretDB for one test run and resolves once it answers `ping`.
 *
 * Port 0 works: the embeddable FerretDB binds its listener before serving, and the launcher
 * prints the bound address (`ready mongodb://…`) on stdout, so no free-port guessing (and no
 * race between probing a port and binding it) is needed.
 *
 * The instance cannot outlive the caller: it is started with `-exit-on-stdin-eof`, and the
 * caller's end of that pipe closes when the caller exits, even on a crash. Its handles are
 * unref'd, so forgetting `stop()` does not keep the caller alive either.
 */
export async function startFerretDb(options: FerretDbOptions): Promise<FerretDbInstance> {
  const log = options.log ?? ((message: string) => process.stderr.write(`ferretdb: ${message}\n`));
  const binary = await ensureFerretDbLauncher({ log });
  await mkdir(options.dataDir, { recursive: true });

  const child = spawn(
    binary,
    ["-listen-addr", `127.0.0.1:${options.port ?? 0}`, "-sqlite-dir", options.dataDir, "-exit-on-stdin-eof"],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderrTail = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4_000);
  });
  const supervised = superviseChild(child, stopGraceMs);
  const { exited, spawnFailed, stop } = supervised;

  const describeFailure = (why: string) =>
    new Error(`FerretDB (${binary}) ${why}${stderrTail === "" ? "" : `:\n${stderrTail.trimEnd()}`}`);

  const readyUrl = new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /^ready (\S+)$/m.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then((status) => {
      reject(describeFailure(`exited before it was ready (${status.code ?? status.signal ?? "unknown"})`));
    });
  });

  try {
    const timer = new AbortController();
    const url = await Promise.race([
      readyUrl,
      spawnFailed,
      delay(startTimeoutMs, undefined, { signal: timer.signal }).then(() => {
        throw describeFailure(`printed no address within ${startTimeoutMs / 1000} s`);
      }),
    ]).finally(() => {
      timer.abort();
    });
    if (
      !(await waitUntil(() => pingMongo(url, 1_000), {
        timeoutMs: startTimeoutMs,
        intervalMs: 50,
        abort: exited,
      }))
    ) {
      throw describeFailure(`does not answer ping at ${url}`);
    }
    const pid = child.pid;
    if (pid === undefined) throw describeFailure("has no pid");

    supervised.release();
    return { url, pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
