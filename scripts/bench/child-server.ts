/**
 * Starts one of the bench's reference servers (bare-server.ts, fixed-product-upstream.ts) as a
 * child process and learns its URL from the first line it prints.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { exitWithStarter } from "../infra/processes.js";

export interface ChildServer {
  /** The URL the server printed, without a trailing path. */
  readonly url: string;
  /** Its process id (benchmarks read its CPU time). */
  readonly pid: number;
  stop(): Promise<void>;
}

export function startChildServer(script: string, args: readonly string[] = []): Promise<ChildServer> {
  return new Promise((resolve, reject) => {
    const entry = join(import.meta.dirname, script);
    const child = spawn(process.execPath, [...exitWithStarter, "--import", "tsx", entry, ...args], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    child.stdout.once("data", (chunk: Buffer) => {
      const url = /(http:\/\/[\d.]+:\d+)/.exec(chunk.toString())?.[1];
      if (url === undefined) {
        child.kill("SIGKILL");
        reject(new Error(`${script} printed no URL: ${chunk.toString()}`));
        return;
      }
      resolve({
        url,
        pid: child.pid ?? 0,
        stop: () =>
          new Promise((done) => {
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
    child.once("error", reject);
  });
}
