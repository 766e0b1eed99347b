/**
 * The one lifecycle of the local infrastructure servers (FerretDB, Kafka, ClickHouse, Jaeger):
 * each is a `LocalServer` declaration of its specifics (how it is installed, configured,
 * started and probed), and this file starts any of them the same way, whether it is the shared
 * instance `npm run infra:up` leaves running (infra-component.ts) or a private instance of one
 * test run (private-server.ts). ADR 0072.
 *
 * An instance lives in one directory: its configuration, its data (under `data/` where it keeps
 * any), and `<name>.log`, its standard output and error, replaced at every start so that its
 * tail explains this start.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isAlive, runWhileStdinOpen, superviseChild, tailOf, waitUntil } from "./processes.js";

/** A server's loopback ports, by the role its declaration names them after. */
export type ServerPorts<Port extends string> = Readonly<Record<Port, number>>;

/** What starts a server: a program, its arguments and the variables added to the environment. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * One kind of local server: everything that differs between them. `Installed` is what its
 * installer returns (a binary, a runtime), `Port` the names of the ports it binds.
 */
export interface LocalServer<Installed, Port extends string> {
  /** Lower case: its directory under `.infra/`, its pid and log files, its progress prefix. */
  readonly name: string;
  /** Its name in messages, such as "ClickHouse". */
  readonly title: string;
  readonly portNames: readonly Port[];
  /** How long a start may take before it counts as failed. */
  readonly startTimeoutMs: number;
  /** How long it gets after SIGTERM to shut down before SIGKILL. */
  readonly stopGraceMs: number;
  /** Milliseconds between readiness probes while it starts. */
  readonly probeIntervalMs: number;
  /** A part of its command line that tells its process from another one given the same pid. */
  readonly processSignature: string;
  /** Fetches or builds it into the project's cache (once; scripts/cache/cached-artifact.ts). */
  install(log: (message: string) => void): Promise<Installed>;
  /**
   * Writes its configuration (and storage) into `dir`, which exists, and returns its command.
   * `withStarter`: the instance must stop when its stdin, held by the starter, reaches end of
   * file (a private instance); a program without an option for that runs `whileStdinOpen`.
   */
  prepare(
    installed: Installed,
    dir: string,
    ports: ServerPorts<Port>,
    withStarter: boolean,
  ): Promise<ServerCommand>;
  /** Where it is reached, as messages name it: a URL, or Kafka's broker list. */
  address(ports: ServerPorts<Port>): string;
  /** True once it serves clients. */
  answers(ports: ServerPorts<Port>): Promise<boolean>;
  /** A log the server writes itself beside its output, if any: its tail explains a failed start. */
  ownLog?(dir: string): string;
  /** The variables that point the tests at it (e.g. `MONGODB_URL`). */
  env(ports: ServerPorts<Port>): Readonly<Record<string, string>>;
  /** What the line logged once the shared instance answers says of it (version, data). */
  describe(installed: Installed, dir: string, ports: ServerPorts<Port>): string;
}

/** The command run under run-while-stdin-open.sh, for a program that cannot watch its stdin. */
export function whileStdinOpen(server: ServerCommand): ServerCommand {
  return { ...server, command: runWhileStdinOpen, args: [server.command, ...server.args] };
}

/** Where an instance's standard output and error go. */
export function outputFileOf(server: { readonly name: string }, dir: string): string {
  return join(dir, `${server.name}.log`);
}

/** A server started by `launchServer`, answering. */
export interface LaunchedServer {
  readonly pid: number;
  /** SIGTERM, then SIGKILL after the grace period; resolves once it has exited. Idempotent. */
  readonly stop: () => Promise<void>;
}

/**
 * Starts a server in `dir` on `ports` and resolves once it answers; stops it and throws with
 * its logs' tails when it does not. With a `pidFile` it is detached (its own process group, pid
 * written there) and outlives this process; without, it stops with this process (its stdin is
 * a pipe we hold) and its handles are unref'd, so forgetting `stop()` keeps nothing alive.
 */
export async function launchServer<Installed, Port extends string>(
  server: LocalServer<Installed, Port>,
  installed: Installed,
  instance: { readonly dir: string; readonly ports: ServerPorts<Port>; readonly pidFile?: string },
): Promise<LaunchedServer> {
  const { dir, ports, pidFile } = instance;
  const detached = pidFile !== undefined;
  await mkdir(dir, { recursive: true });
  const { command, args, env } = await server.prepare(installed, dir, ports, !detached);
  const outputFile = outputFileOf(server, dir);
  const output = openSync(outputFile, "w");
  let child;
  try {
    child = spawn(command, args, {
      detached,
      stdio: [detached ? "ignore" : "pipe", output, output],
      env: { ...process.env, ...env },
    });
  } finally {
    closeSync(output);
  }
  const supervised = superviseChild(child, server.stopGraceMs);
  const pid = child.pid;
  if (pid === undefined) return supervised.spawnFailed; // e.g. ENOENT: there is nothing to stop
  try {
    if (pidFile !== undefined) await writeFile(pidFile, `${pid}\n`);
    const ready = await waitUntil(() => server.answers(ports), {
      timeoutMs: server.startTimeoutMs,
      intervalMs: server.probeIntervalMs,
      abort: supervised.exited,
    });
    const exit = supervised.exit();
    if (exit !== undefined) {
      throw await startFailure(server, dir, ports, `it exited (${exit.code ?? exit.signal ?? "unknown"})`);
    }
    if (!ready)
      throw await startFailure(server, dir, ports, `no answer after ${server.startTimeoutMs / 1000} s`);
    // Alive as well as answering: if ours could not bind, another server may be answering.
    if (!isAlive(pid))
      throw await startFailure(server, dir, ports, "it is gone, another process answers there");
    supervised.release();
    return { pid, stop: supervised.stop };
  } catch (error) {
    await supervised.stop();
    if (pidFile !== undefined) await rm(pidFile, { force: true });
    throw error;
  }
}

/** Why a start failed, with the tail of each log the server writes, which usually says more. */
async function startFailure<Installed, Port extends string>(
  server: LocalServer<Installed, Port>,
  dir: string,
  ports: ServerPorts<Port>,
  why: string,
): Promise<Error> {
  const logs = [...(server.ownLog === undefined ? [] : [server.ownLog(dir)]), outputFileOf(server, dir)];
  let message = `${server.title} did not start at ${server.address(ports)}: ${why}`;
  for (const file of logs) {
    const tail = await tailOf(file, 20);
    if (tail !== "") message += `\nlast lines of ${file}:\n${tail}`;
  }
  return new Error(message);
}
