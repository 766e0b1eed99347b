/**
 * The analytics stream processor as its own process (services/analytics/src/processor/main.ts),
 * started as the multi-process topology starts a service (scripts/cluster/cluster.ts): a clean
 * environment with only the settings a service process reads, on loopback, PORT=0. It is ready
 * once it prints its listening line, which it does after its consumer has started.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { sha256 } from "@commerce/runtime/identity/request-trust.js";

export interface ProcessorProcessOptions {
  readonly kafkaBrokers: string;
  /** With the database in its path. */
  readonly clickHouseUrl: string;
  readonly dataDir: string;
}

export interface ProcessorProcess {
  readonly pid: number;
  /** `performance.now()` when the listening line arrived. */
  readonly readyAt: number;
  /** False once the process has exited. */
  running(): boolean;
  /** SIGTERM, then SIGKILL after 15 s; resolves once it exited. */
  stop(): Promise<void>;
}

const root = join(import.meta.dirname, "..", "..");
const entry = join(root, "services/analytics/src/processor/main.ts");
const startTimeoutMs = 60_000;
const stopGraceMs = 15_000;

export function startProcessorProcess(options: ProcessorProcessOptions): Promise<ProcessorProcess> {
  const secret = (): string => randomBytes(32).toString("base64url");
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: root,
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "warn",
      DATA_DIR: options.dataDir,
      KAFKA_BROKERS: options.kafkaBrokers,
      CLICKHOUSE_URL: options.clickHouseUrl,
      PEER_SECRET: secret(),
      EDGE_SECRET_SHA256: Buffer.from(sha256(secret())).toString("hex"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), stopGraceMs);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the analytics processor did not start within ${startTimeoutMs} ms:\n${output}`));
    }, startTimeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      if (!/listening on http:\/\/\S+/.test(output)) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.stdout.resume();
      resolve({
        pid: child.pid ?? 0,
        readyAt: performance.now(),
        running: () => child.exitCode === null && child.signalCode === null,
        stop,
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      process.stderr.write(chunk);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the analytics processor exited with ${code ?? signal ?? "?"}:\n${output}`));
    });
  });
}
