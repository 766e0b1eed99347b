/**
 * `npm start` run as a user runs it (npm, its prestart building what is stale, the compiled
 * platform started by the start script through `sh -c`) ends
 * with the platform: stopping npm (SIGTERM to its pid) or pressing Ctrl-C (SIGINT to the
 * foreground process group) runs the platform's own graceful shutdown, and npm returns only once
 * the platform is gone, with its exit status. Linux: the process group is read from /proc.
 */
import { expect } from "chai";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { eventually } from "@commerce/runtime/testing";

const root = join(import.meta.dirname, "..", "..");

interface GroupMember {
  readonly pid: number;
  readonly argv: readonly string[];
}

interface StartedNpm {
  /** npm's pid, which is also its process group's id. */
  readonly pid: number;
  /** The platform's pid (node running the compiled embedded/src/main.js). */
  readonly platform: number;
  /** The REST edge's port and the services' port. */
  readonly ports: readonly number[];
  /** npm's exit code and signal. */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** All npm start printed so far, stdout and stderr. */
  readonly output: () => string;
}

/** The live processes of a process group (zombies excluded), with their command lines. */
function processGroup(pgid: number): GroupMember[] {
  const members: GroupMember[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) !== pgid || state === "Z") continue;
      members.push({ pid: Number(entry), argv: readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0") });
    } catch {
      // gone while we looked
    }
  }
  return members;
}

/** The error code of a TCP connection to a loopback port ("ECONNREFUSED" once nothing listens). */
function connectionOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe("npm start", function () {
  // Generation and the build (when stale) compile TypeScript on two busy cores.
  this.timeout(180_000);
  const stopBoundMs = 20_000;
  let dataDir: string;
  let group: number | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "npm-start-"));
  });
  afterEach(async () => {
    // Whatever a failed test left running: its process group is ours alone.
    if (group !== undefined && processGroup(group).length > 0) process.kill(-group, "SIGKILL");
    group = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  /** `npm start` in its own process group, as a terminal's shell starts it, once it serves. */
  async function startNpm(): Promise<StartedNpm> {
    // Embedded mode, whatever infrastructure (or gateway) the suite around this one was given.
    const infrastructure = new Set([
      "MONGODB_URL",
      "KAFKA_BROKERS",
      "CLICKHOUSE_URL",
      "PAYMENT_GATEWAY_URL",
      "PAYMENT_KEY_ID",
      "PAYMENT_SANDBOX",
    ]);
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !infrastructure.has(name))),
      DATA_DIR: dataDir,
      PORT: "0",
      GRPC_PORT: "0",
      LOG_LEVEL: "info",
    };
    const npm = spawn("npm", ["start"], {
      cwd: root,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = npm.pid;
    if (pid === undefined) throw new Error("npm could not be started");
    group = pid;
    const exited = once(npm, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    let output = "";
    npm.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    npm.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const urls = await Promise.race([
      eventually(
        () => {
          const rest = /REST edge:\s+http:\/\/127\.0\.0\.1:(\d+)\/api/.exec(output)?.[1];
          const grpc = /gRPC\/Connect:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
          return rest === undefined || grpc === undefined
            ? undefined
            : { rest: Number(rest), grpc: Number(grpc) };
        },
        150_000,
        "npm start to print where it listens",
      ),
      exited.then(([code, signal]) => {
        throw new Error(`npm start ended (${code ?? signal}) before serving:\n${output}`);
      }),
    ]);
    const products = await fetch(`http://127.0.0.1:${urls.rest}/api/products`);
    expect(products.status).to.equal(200);
    const platform = processGroup(pid).find(
      ({ argv }) => basename(argv[0] ?? "") === "node" && argv.includes(".build/dist/embedded/src/main.js"),
    );
    if (platform === undefined) throw new Error(`no platform process in npm's group:\n${output}`);
    return { pid, platform: platform.pid, ports: [urls.rest, urls.grpc], exited, output: () => output };
  }

  /** Sends the signal and checks everything the user sees afterwards. */
  async function expectCleanStop(started: StartedNpm, signal: () => void): Promise<void> {
    signal();
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      started.exited.then(([code, signal]) => ({ code, signal })),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), stopBoundMs))),
    ]);
    clearTimeout(timer);
    expect(ended, `npm start still running ${stopBoundMs} ms after the signal`).to.not.equal(undefined);
    // When npm returns, the platform has stopped, having shut down without error (exit 0).
    expect(
      processGroup(started.pid).map(({ pid }) => pid),
      "the platform still runs after npm ended",
    ).to.not.include(started.platform);
    expect(ended, "npm's exit").to.deep.equal({ code: 0, signal: null });
    // Nothing left of the group.
    await eventually(
      () => (processGroup(started.pid).length === 0 ? true : undefined),
      10_000,
      "the group to end",
    );
    for (const port of started.ports) expect(await connectionOutcome(port)).to.equal("ECONNREFUSED");
    const log = started.output();
    expect(log.match(/"msg":"shutting down"/g)).to.have.length(1);
    expect(log).to.not.include("shutdown failed");
  }

  it("stops the platform when npm gets SIGTERM: its shutdown runs, npm exits 0 after it, the ports close", async () => {
    const started = await startNpm();
    await expectCleanStop(started, () => process.kill(started.pid, "SIGTERM"));
  });

  it("says at start, in what it prints and in its log, that payments go to the sandbox gateway, which takes no money", async () => {
    const started = await startNpm();
    const output = started.output();
    expect(output).to.include(
      "  Payments:       the sandbox gateway, which takes no money (no PAYMENT_GATEWAY_URL is set)\n",
    );
    expect(output).to.match(
      /"gateway":"sandbox".*"msg":"payments go to the sandbox gateway, which takes no money/,
    );
    await expectCleanStop(started, () => process.kill(started.pid, "SIGTERM"));
  });

  it("stops the platform on Ctrl-C (SIGINT to the foreground process group) the same way", async () => {
    const started = await startNpm();
    await expectCleanStop(started, () => process.kill(-started.pid, "SIGINT"));
  });
});
