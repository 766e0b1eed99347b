/**
 * Process plumbing shared by the infrastructure servers (local-server.ts) and the scripts that
 * start processes: detached servers tracked by pid files for `infra:up` / `infra:down`, a
 * graceful stop for every process we start, and the two ways a process started for a run ends
 * with its starter.
 *
 * Why pid files and not a supervisor: the servers must outlive the `npm run infra:up` that
 * started them (the tests run afterwards, in another process), and nothing here may depend on
 * containers or system services.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { Socket, connect, createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { pathToFileURL } from "node:url";

/**
 * The `node` arguments that end a process with its starter (exit-with-starter.mjs): it gets
 * SIGTERM once the starter is gone, even by a crash. Spawn it with stdin `"pipe"`, which the
 * starter holds open for its lifetime.
 */
export const exitWithStarter: readonly string[] = [
  "--import",
  pathToFileURL(join(import.meta.dirname, "exit-with-starter.mjs")).href,
];

/**
 * The launcher that does the same for a program that cannot preload it (Envoy, ClickHouse,
 * Jaeger, the control plane): run-while-stdin-open.sh, stdin `"pipe"` too.
 */
export const runWhileStdinOpen = join(import.meta.dirname, "run-while-stdin-open.sh");

/**
 * True when a process with this pid exists and has not exited (even if owned by another user).
 * An exited process whose parent has not reaped it yet (a zombie: what a detached server
 * becomes once its parent is gone, until init collects it) counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; comm may contain spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false; // no /proc (not Linux) or already gone
  }
}

/**
 * The command line of a process, where the platform exposes it (`/proc` on Linux); undefined
 * elsewhere or when the process is gone.
 */
async function commandLineOf(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, "utf8")).replaceAll("\0", " ");
  } catch {
    return undefined;
  }
}

/**
 * The pid recorded in `pidFile` if that process still runs and is the expected program. A pid
 * file left by a crash (or whose pid was reused by an unrelated process) is removed, so the
 * caller can simply start a new instance.
 */
export async function readLivePid(pidFile: string, program: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(pidFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const pid = Number(text.trim());
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    const commandLine = await commandLineOf(pid);
    if (commandLine === undefined || commandLine.includes(program)) return pid;
  }
  await rm(pidFile, { force: true });
  return undefined;
}

/**
 * Stops a process the polite way first: SIGTERM, then SIGKILL if it has not exited after
 * `graceMs`. Resolves once it is gone. Returns what it took.
 */
export async function stopProcess(
  pid: number,
  graceMs: number,
): Promise<"not running" | "terminated" | "killed"> {
  if (!isAlive(pid)) return "not running";
  signalProcess(pid, "SIGTERM");
  if (await waitUntil(() => Promise.resolve(!isAlive(pid)), { timeoutMs: graceMs, intervalMs: 50 })) {
    return "terminated";
  }
  signalProcess(pid, "SIGKILL");
  await waitUntil(() => Promise.resolve(!isAlive(pid)), { timeoutMs: 5_000, intervalMs: 50 });
  return "killed";
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Polls `check` until it resolves true or the time is up; resolves whether it succeeded.
 * `abort` ends the wait early (e.g. when the process we wait for has exited).
 */
export async function waitUntil(
  check: () => Promise<boolean>,
  options: { readonly timeoutMs: number; readonly intervalMs: number; readonly abort?: Promise<unknown> },
): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  const abort = { requested: false };
  void options.abort?.then(
    () => (abort.requested = true),
    () => (abort.requested = true),
  );
  for (;;) {
    if (await check()) return true;
    if (abort.requested || Date.now() >= deadline) return false;
    await delay(options.intervalMs);
  }
}

/** The last `lines` lines of a log file, for error messages; empty if there is none. */
export async function tailOf(file: string, lines: number): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/**
 * The `down` of a detached component: stops the process its pid file names (if it is alive
 * and is `program`), removes the pid file, and says what happened.
 */
export async function stopDetached(
  pidFile: string,
  program: string,
  graceMs: number,
  log: (message: string) => void,
): Promise<void> {
  const pid = await readLivePid(pidFile, program);
  if (pid === undefined) {
    log("not running");
    return;
  }
  const outcome = await stopProcess(pid, graceMs);
  await rm(pidFile, { force: true });
  log(`stopped (pid ${pid}, ${outcome})`);
}

/**
 * True when something accepts TCP connections at `host:port`. Readiness probes try this first:
 * while nothing listens it fails at once, where a client library would wait for its own
 * timeout, so polling a server that is still starting stays cheap.
 */
export function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 500 });
    const done = (result: boolean): void => {
      socket.destroy();
      resolve(result);
    };
    socket.once("connect", () => {
      done(true);
    });
    socket.once("error", () => {
      done(false);
    });
    socket.once("timeout", () => {
      done(false);
    });
  });
}

/** How a child process ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A private child server (FerretDB, Kafka) as its starter sees it. */
export interface SupervisedChild {
  /** Settles when the process exits. */
  readonly exited: Promise<ChildExit>;
  /** Rejects if the process could not be spawned at all; never resolves. */
  readonly spawnFailed: Promise<never>;
  /** How it ended, once it has. */
  readonly exit: () => ChildExit | undefined;
  /**
   * SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. Safe to call
   * more than once.
   */
  readonly stop: () => Promise<void>;
  /** Lets the caller exit without stopping it first (the child watches its stdin for that). */
  readonly release: () => void;
}

/** Tracks a spawned child's exit and gives it one polite, idempotent `stop`. */
export function superviseChild(child: ChildProcess, graceMs: number): SupervisedChild {
  let exit: ChildExit | undefined;
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const spawnFailed = new Promise<never>((_, reject) => {
    child.once("error", reject);
  });
  void spawnFailed.catch(() => undefined);
  let stopping: Promise<void> | undefined;
  return {
    exited,
    spawnFailed,
    exit: () => exit,
    stop: () => {
      stopping ??= (async () => {
        if (exit !== undefined) return;
        child.kill("SIGTERM");
        const timer = new AbortController();
        const graceful = await Promise.race([
          exited.then(() => true),
          delay(graceMs, false, { signal: timer.signal }).catch(() => false),
        ]);
        timer.abort();
        if (!graceful) {
          child.kill("SIGKILL");
          await exited;
        }
      })();
      return stopping;
    },
    release: () => {
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) {
        if (stream instanceof Socket) stream.unref();
      }
    },
  };
}

/**
 * A loopback port for each of `names`: the one `given` names, else one that was free a moment
 * ago, different from every other.
 */
export async function freePorts<Name extends string>(
  names: readonly Name[],
  given?: Readonly<Partial<Record<Name, number | undefined>>>,
): Promise<Record<Name, number>> {
  const taken = new Set(names.map((name) => given?.[name]).filter((port) => port !== undefined));
  const ports = {} as Record<Name, number>;
  for (const name of names) {
    let port = given?.[name];
    while (port === undefined) {
      const free = await freePort();
      if (!taken.has(free)) port = free;
    }
    taken.add(port);
    ports[name] = port;
  }
  return ports;
}

/** A loopback port that was free a moment ago (bound, read and released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === "object" && address !== null) resolve(address.port);
        else reject(new Error("no port from the probe server"));
      });
    });
  });
}
