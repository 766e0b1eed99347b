/**
 * Starts the platform (the compiled `embedded/src/main.js`, exactly what `npm start` runs) as a
 * child process for the acceptance suites, and learns its URL from what it prints. The build is
 * made once before (`npm test` builds first; ADR 0093): a start only checks its fingerprint, and
 * builds when it is stale, as for a suite run alone after an edit.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { buildIfStale, embeddedEntry, isBuilt } from "../build.js";
import { exitWithStarter } from "../infra/processes.js";

export interface PlatformProcess {
  /** The REST edge. */
  readonly baseUrl: string;
  /** The services' own gRPC port (h2c), which serves every service in embedded mode. */
  readonly grpcUrl: string;
  /** The platform's process id (benchmarks read its CPU time). */
  readonly pid: number;
  stop(): Promise<void>;
  /** SIGKILL: a crash, with no chance to finish anything. */
  kill(): Promise<void>;
}

const root = join(import.meta.dirname, "..", "..");

export interface PlatformProcessOptions {
  readonly timeoutMs?: number;
  /**
   * Runs `embedded/src/main.ts` through tsx instead of the build (`npm run dev`): the benchmark
   * compares the two.
   */
  readonly fromSource?: boolean;
  /** More options for node, before the entry (`--cpu-prof`, say). */
  readonly nodeOptions?: readonly string[];
}

export async function startPlatformProcess(
  env: NodeJS.ProcessEnv,
  { timeoutMs = 60_000, fromSource = false, nodeOptions = [] }: PlatformProcessOptions = {},
): Promise<PlatformProcess> {
  if (!fromSource && !isBuilt()) await buildIfStale();
  const entry = fromSource
    ? ["--import", "tsx", join(root, "embedded/src/main.ts")]
    : ["--enable-source-maps", embeddedEntry];
  const child = spawn(process.execPath, [...exitWithStarter, ...nodeOptions, ...entry], {
    cwd: root,
    env: { ...process.env, ...env, PORT: "0", GRPC_PORT: "0" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`platform did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      const match = /REST edge:\s+(http:\/\/\S+?)\/api/.exec(output);
      const grpc = /gRPC\/Connect:\s+(http:\/\/\S+)/.exec(output);
      if (match?.[1] === undefined || grpc?.[1] === undefined) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.stdout.resume();
      resolve({
        baseUrl: match[1],
        grpcUrl: grpc[1],
        pid: child.pid ?? 0,
        async stop() {
          child.kill("SIGTERM");
          await exited;
        },
        async kill() {
          child.kill("SIGKILL");
          await exited;
        },
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      process.stderr.write(chunk);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`platform exited with ${code}:\n${output}`));
    });
  });
}
