/**
 * The `up` of a local server that `npm run infra:up` leaves running (FerretDB, Kafka,
 * ClickHouse): adopt the one its pid file names if it answers (a concurrent `up` may still be
 * starting it), else launch it detached, wait until it answers, and make sure the process that
 * answers is ours. Its `down` is `stopDetached` (processes.ts).
 */
import { rm } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { isAlive, readLivePid, stopProcess, tailOf, waitUntil, type DetachedProcess } from "./processes.js";

export interface DetachedServer {
  /** Its name in messages, such as "FerretDB". */
  readonly title: string;
  /** Where it answers: a URL, or Kafka's broker list. */
  readonly address: string;
  readonly pidFile: string;
  /** A part of its command line that tells its process from another one given the same pid. */
  readonly processSignature: string;
  /** The log whose tail explains a failed start. */
  readonly logFile: string;
  readonly startTimeoutMs: number;
  /** Milliseconds between readiness probes while it starts. */
  readonly probeIntervalMs: number;
  answers(): Promise<boolean>;
}

export interface Launch {
  /** Prepares what the server needs (configuration, storage) and starts it detached. */
  start(): Promise<DetachedProcess>;
  /** More of the story when it did not start (another log's tail), if any. */
  failureDetail?(): Promise<string>;
  /** The line logged once it answers. */
  describe(pid: number, seconds: string): string;
}

/** True when the server its pid file names answers; throws when it runs but does not answer. */
export async function adoptRunning(server: DetachedServer, log: (message: string) => void): Promise<boolean> {
  const running = await readLivePid(server.pidFile, server.processSignature);
  if (running === undefined) return false;
  if (await waitUntil(() => server.answers(), { timeoutMs: server.startTimeoutMs, intervalMs: 100 })) {
    log(`already running (pid ${running}) at ${server.address}`);
    return true;
  }
  throw new Error(
    `${server.title} (pid ${running}) runs but does not answer at ${server.address}; ` +
      `run "npm run infra:down" and retry (log: ${server.logFile})`,
  );
}

/** Starts the server and resolves once it answers; stops it and throws with its log when not. */
export async function launchDetached(
  server: DetachedServer,
  launch: Launch,
  log: (message: string) => void,
): Promise<void> {
  const started = performance.now();
  const process = await launch.start();
  const ready = await waitUntil(() => server.answers(), {
    timeoutMs: server.startTimeoutMs,
    intervalMs: server.probeIntervalMs,
    abort: process.exited,
  });
  // Alive as well as answering: if ours could not bind, another server may be answering.
  if (!ready || !isAlive(process.pid)) {
    await stopProcess(process.pid, 2_000);
    await rm(server.pidFile, { force: true });
    const detail = (await launch.failureDetail?.()) ?? "";
    throw new Error(
      `${server.title} did not start at ${server.address}; last lines of ${server.logFile}:\n` +
        `${await tailOf(server.logFile, 20)}${detail === "" ? "" : `\n${detail}`}`,
    );
  }
  log(launch.describe(process.pid, ((performance.now() - started) / 1000).toFixed(2)));
}
