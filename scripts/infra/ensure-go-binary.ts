/**
 * Builds a Go program of ours once and keeps the binary in the per-user cache, keyed by a hash
 * of its sources (`main.go`, `go.mod`, `go.sum`). A binary is rebuilt only when those change,
 * so the second `infra:up` costs nothing, and two checkouts at different versions of the
 * launcher never overwrite each other's binary (old versions stay until the cache is cleared).
 *
 * The build writes to a temporary name and renames into place, so a concurrent or interrupted
 * build never leaves a half-written binary under the final name.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";

const sourceFiles = ["main.go", "go.mod", "go.sum"] as const;

export interface GoBinaryOptions {
  /** The Go module directory (holds main.go, go.mod and go.sum). */
  readonly sourceDir: string;
  /** Base name of the binary; the source hash is appended. */
  readonly name: string;
  readonly binDir: string;
  /** Progress messages (the build takes minutes the first time). */
  readonly log: (message: string) => void;
}

async function sourceHash(sourceDir: string): Promise<string> {
  const hash = createHash("sha256");
  for (const file of sourceFiles) {
    hash
      .update(file)
      .update("\0")
      .update(await readFile(join(sourceDir, file)))
      .update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

function runGo(args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Go's output goes to our stderr: stdout is reserved for the env lines of `infra:up`.
    const child = spawn("go", args, { cwd, stdio: ["ignore", 2, 2] });
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new Error(
              "the Go toolchain (1.24 or newer) is needed to build the FerretDB launcher: https://go.dev/dl/",
            )
          : error,
      );
    });
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`go ${args.join(" ")} failed (${code ?? signal ?? "unknown"})`));
    });
  });
}

/** Returns the path of an up-to-date binary, building it first if the cache has none. */
export async function ensureGoBinary(options: GoBinaryOptions): Promise<string> {
  const binary = join(options.binDir, `${options.name}-${await sourceHash(options.sourceDir)}`);
  if (existsSync(binary)) return binary;

  await mkdir(options.binDir, { recursive: true });
  const partial = `${binary}.partial-${process.pid}`;
  options.log(`building ${options.name} into ${options.binDir} (a few minutes the first time)`);
  const started = performance.now();
  try {
    // -buildvcs=false: the binary's version must not depend on the state of this checkout.
    await runGo(["build", "-trimpath", "-buildvcs=false", "-o", partial, "."], options.sourceDir);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  options.log(`built ${options.name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  return binary;
}
