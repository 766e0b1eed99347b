/**
 * Starts the platform (`services/edge/src/main.ts`, exactly what `npm start` runs) as a child
 * process for the acceptance suites, and learns its URL from what it prints.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

export interface PlatformProcess {
  readonly baseUrl: string;
  /** The services' own Connect/gRPC port (GRPC_PORT), when the platform printed it. */
  readonly grpcUrl?: string | undefined;
  stop(): Promise<void>;
}

const root = join(import.meta.dirname, "..", "..");

export function startPlatformProcess(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<PlatformProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "services/edge/src/main.ts")], {
    cwd: root,
    env: { ...process.env, ...env, PORT: "0", GRPC_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
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
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.stdout.resume();
      resolve({
        baseUrl: match[1],
        grpcUrl: /gRPC\/Connect:\s+(http:\/\/\S+)/.exec(output)?.[1],
        async stop() {
          child.kill("SIGTERM");
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
