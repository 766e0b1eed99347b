/**
 * An exclusive lock between processes on one machine: flock(2) on a lock file, held by a small
 * `flock -F <file> sh -c 'echo; exec cat'` child whose standard input we hold. The kernel
 * releases a flock when its holder is gone, so a lock never outlives a crash, even by SIGKILL:
 * when we die, our end of the pipe closes, `cat` reads the end of its input and exits. No lock
 * file is ever stale, and nobody has to guess whether its owner still lives.
 *
 * The same lock is taken by shell scripts (`flock <file>`), so scripts/cache/ensure-node.sh and
 * the TypeScript installers exclude each other on one file.
 */
import { spawn } from "node:child_process";

export interface FileLockOptions {
  /** Called once if the lock is held by someone else and we wait for it. */
  readonly onWait?: () => void;
}

/** Runs `work` while holding the lock on `path` (created if missing); releases it after. */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const release = await acquire(path, options);
  try {
    return await work();
  } finally {
    await release();
  }
}

/** Holds the lock; resolves with the function that releases it. */
function acquire(path: string, options: FileLockOptions): Promise<() => Promise<void>> {
  // -F: `sh` becomes the holder itself (no forked child keeps the lock after flock dies); it
  // prints a line once the lock is ours, then waits for the end of its input.
  const holder = spawn("flock", ["--exclusive", "--no-fork", path, "sh", "-c", "echo locked; exec cat"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => holder.once("close", () => resolve()));
  const waiting = options.onWait === undefined ? undefined : setTimeout(options.onWait, 500);
  let stderr = "";
  holder.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    holder.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(waiting);
      reject(
        error.code === "ENOENT"
          ? new Error("flock (util-linux) is needed to install tools into the cache safely")
          : error,
      );
    });
    holder.stdout.setEncoding("utf8").once("data", () => {
      clearTimeout(waiting);
      resolve(async () => {
        holder.stdin.end();
        await exited;
      });
    });
    holder.once("exit", (code, signal) => {
      clearTimeout(waiting);
      reject(new Error(`flock ${path} failed (${code ?? signal ?? "unknown"}): ${stderr.trim()}`));
    });
  });
}
