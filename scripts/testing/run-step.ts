/**
 * Runs one command of the test pipeline with its output streamed through, and reads mocha's
 * closing counts from it, so `npm test` can end with one total line.
 */
import { spawn } from "node:child_process";

export interface StepResult {
  readonly ok: boolean;
  readonly passed: number;
  readonly failed: number;
  /** Wall time of the step. */
  readonly seconds: number;
}

export function runStep(
  title: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<StepResult> {
  process.stdout.write(`\n=== ${title}\n`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...env },
    });
    let tail = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      process.stdout.write(chunk);
      tail = (tail + chunk).slice(-2_000);
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const passed = Number(/(\d+) passing/.exec(tail)?.[1] ?? 0);
      const failed = Number(/(\d+) failing/.exec(tail)?.[1] ?? 0);
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(`--- ${title}: ${code === 0 ? "ok" : "FAILED"} in ${seconds.toFixed(1)} s\n`);
      resolve({ ok: code === 0, passed, failed: code === 0 ? failed : Math.max(failed, 1), seconds });
    });
  });
}
