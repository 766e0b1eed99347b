/**
 * Runs one command of an install or build (go, mvn, javac, pip, apt-get, dpkg, npm, …). Its
 * standard output is returned; its standard error (progress, compiler messages) goes to ours,
 * never to our standard output, which `infra:up` reserves for the lines it prints. A failure
 * says what failed and shows the end of what the command printed; a missing command says what
 * to install.
 */
import { spawn } from "node:child_process";

// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const ansiEscape = /\u001b\[[0-9;]*m/g;

export interface InstallCommandOptions {
  /** What to install when the command is not found, e.g. "Go 1.26 or newer: https://go.dev/dl/". */
  readonly missing: string;
  readonly cwd?: string;
  /** The whole environment of the command; defaults to ours. */
  readonly env?: NodeJS.ProcessEnv;
}

export function runInstallCommand(
  command: string,
  args: readonly string[],
  options: InstallCommandOptions,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    // Some tools (Maven 3.8) colour their output even when it is not a terminal.
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      const text = chunk.replace(ansiEscape, "");
      if (text !== "") process.stderr.write(text);
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(error.code === "ENOENT" ? new Error(`${command} not found: ${options.missing}`) : error);
    });
    child.once("close", (code, signal) => {
      if (code === 0) {
        resolve(stdout);
        return;
      }
      const tail = stdout.replace(ansiEscape, "").trimEnd().split("\n").slice(-20).join("\n");
      reject(
        new Error(
          `${command} ${args.join(" ")} failed (${code ?? signal ?? "unknown"})${options.cwd === undefined ? "" : ` in ${options.cwd}`}${tail === "" ? "" : `:\n${tail}`}`,
        ),
      );
    });
  });
}
