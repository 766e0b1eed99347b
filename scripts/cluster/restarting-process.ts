/**
 * One process of the topology, kept running the way Kubernetes keeps a container running: if it
 * exits without being asked to, the exit is reported (with the tail of its output) and it is
 * started again after a backoff. Nothing goes silently missing: every unexpected exit is an
 * incident, which `cluster:up` prints and the tests fail on.
 */
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { superviseChild, type SupervisedChild } from "../infra/processes.js";

export interface ProcessSpec {
  /** Instance name, e.g. `product-2`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the process: nothing is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Where its stdout and stderr go (appended across restarts). */
  readonly logFile: string;
}

export interface Incident {
  readonly process: string;
  readonly at: string;
  readonly exit: string;
  /** The last lines it printed. */
  readonly tail: string;
}

export interface RestartingProcess {
  readonly name: string;
  readonly pid: () => number | undefined;
  stop(): Promise<void>;
}

const stopGraceMs = 15_000;
const maxBackoffMs = 10_000;
/** A run at least this long counts as healthy: the next crash restarts without delay. */
const stableAfterMs = 30_000;

export function startRestartingProcess(
  spec: ProcessSpec,
  onIncident: (incident: Incident) => void,
): RestartingProcess {
  const log = createWriteStream(spec.logFile, { flags: "a" });
  let current: SupervisedChild | undefined;
  let pid: number | undefined;
  const stopped = new AbortController();
  // A function, not the flag itself: the compiler would narrow it to false across the awaits.
  const stopping = (): boolean => stopped.signal.aborted;

  async function run(): Promise<void> {
    let backoffMs = 500;
    while (!stopping()) {
      const started = Date.now();
      let tail = "";
      // stdin held open while this process runs: a command started with `exitWithStarter`
      // (processes.ts) stops when it is gone, even by a crash.
      const child = spawn(spec.command, spec.args, { env: spec.env, stdio: ["pipe", "pipe", "pipe"] });
      pid = child.pid;
      current = superviseChild(child, stopGraceMs);
      for (const stream of [child.stdout, child.stderr]) {
        stream.on("data", (chunk: Buffer) => {
          log.write(chunk);
          tail = (tail + chunk.toString("utf8")).slice(-2_000);
        });
      }
      const exit = await Promise.race([current.exited, current.spawnFailed.catch((e: unknown) => e)]);
      if (stopping()) return;
      const how =
        exit instanceof Error
          ? `could not start: ${exit.message}`
          : `exited (code ${String((exit as { code: number | null }).code)}, signal ${String((exit as { signal: string | null }).signal)})`;
      onIncident({
        process: spec.name,
        at: new Date().toISOString(),
        exit: how,
        tail: tail.trimEnd().split("\n").slice(-8).join("\n"),
      });
      backoffMs = Date.now() - started > stableAfterMs ? 500 : Math.min(maxBackoffMs, backoffMs * 2);
      await delay(backoffMs, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  }
  const loop = run();

  return {
    name: spec.name,
    pid: () => pid,
    async stop() {
      stopped.abort();
      await current?.stop();
      await loop;
      await new Promise((resolve) => log.end(resolve));
    },
  };
}
