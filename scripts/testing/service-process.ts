/**
 * Starts one service process from source (`services/<name>/src/main.ts`, or the analytics
 * stream processor's `processor/main.ts`) as the topology runs it, under `node --import tsx`,
 * with exactly the environment given, and resolves once it printed that it listens. For tests
 * that stop, kill and restart a single process (the crash tests), and for the analytics bench.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { exitWithStarter } from "../infra/processes.js";

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  readonly pid: number;
  /** Settles when the process has exited, however it ended. */
  readonly exited: Promise<ProcessExit>;
  /** How it ended, once it has; undefined while it runs. */
  exit(): ProcessExit | undefined;
  /** Everything it printed so far, stdout and stderr interleaved (for failure messages). */
  output(): string;
  /** SIGTERM (a graceful stop); resolves once it has exited. */
  stop(): Promise<ProcessExit>;
  /** SIGKILL (a crash: no chance to finish anything); resolves once it has exited. */
  kill(): Promise<ProcessExit>;
}

export interface ServiceProcessOptions {
  /** As the process names itself in its "<name> service listening on …" line. */
  readonly name: string;
  /** Its entry, relative to the repository root. */
  readonly entry: string;
  /** The whole environment of the process (PATH is added when missing). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

const root = join(import.meta.dirname, "..", "..");
/** Keeps the end of a chatty process's output. */
const outputLimit = 64 * 1024;

export function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const child = spawn(process.execPath, [...exitWithStarter, "--import", "tsx", join(root, options.entry)], {
    cwd: root,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-outputLimit);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  let ended: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => {
      ended = { code, signal };
      resolve(ended);
    });
  });
  const listening = `${options.name} service listening on http://`;

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${options.name} did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (): void => {
      if (!output.includes(listening)) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      resolve({
        pid: child.pid ?? 0,
        exited,
        exit: () => ended,
        output: () => output,
        async stop() {
          if (ended === undefined) child.kill("SIGTERM");
          return exited;
        },
        async kill() {
          if (ended === undefined) child.kill("SIGKILL");
          return exited;
        },
      });
    };
    child.stdout.on("data", onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`${options.name} exited with ${code ?? signal ?? "?"} before it listened:\n${output}`),
      );
    });
  });
}
