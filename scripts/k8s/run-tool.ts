/** Runs one of the toolchain's commands to completion and keeps what it printed. */
import { spawn } from "node:child_process";

export interface ToolRun {
  /** The exit code, or the signal's name. */
  readonly status: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

export function runTool(
  command: string,
  args: readonly string[],
  options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly input?: string } = {},
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...options.env },
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      resolve({ status: code ?? signal ?? "unknown", stdout, stderr });
    });
    child.stdin.end(options.input);
  });
}

/**
 * The environment that keeps helm's cache, configuration and data inside `dir`, so a test
 * neither reads nor changes the user's repositories and plugins.
 */
export function helmEnvironment(dir: string): NodeJS.ProcessEnv {
  return {
    HELM_CACHE_HOME: `${dir}/cache`,
    HELM_CONFIG_HOME: `${dir}/config`,
    HELM_DATA_HOME: `${dir}/data`,
  };
}
