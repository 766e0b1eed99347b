/**
 * The Go commands that build the Kubernetes toolchain, with their own module and build caches
 * inside the toolchain's cache (`<root>/go/mod`, `<root>/go/build`): the builds download about
 * 3 GB of modules and fill about 4 GB of build cache, which must neither mix with a developer's
 * own Go caches nor survive as anything but a deletable folder. `-modcacherw` keeps the module
 * cache writable so that `rm -rf <root>/go` removes it.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";

export interface GoCaches {
  readonly modCache: string;
  readonly buildCache: string;
}

/** The Go caches of the toolchain whose cache root is `root`. */
export function goCachesUnder(root: string): GoCaches {
  return { modCache: join(root, "go", "mod"), buildCache: join(root, "go", "build") };
}

function goEnvironment(caches: GoCaches): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GOMODCACHE: caches.modCache,
    GOCACHE: caches.buildCache,
    // The binary must not depend on this checkout (-buildvcs) or on where it was built (-trimpath).
    GOFLAGS: "-modcacherw -buildvcs=false -trimpath",
    // Pure Go: no C toolchain needed, and static binaries as the projects ship them.
    CGO_ENABLED: "0",
    // Build with the Go that is installed, never one downloaded behind our back.
    GOTOOLCHAIN: "local",
    GOWORK: "off",
  };
}

export interface GoRun {
  readonly caches: GoCaches;
  /** The module directory to run in (a wrapper module), or any directory for `go install x@v`. */
  readonly cwd: string;
  /** Variables added to the Go environment (e.g. GOBIN). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs `go <args>` and resolves with its standard output; its standard error (progress and
 * compiler messages) goes to ours, so a failing build explains itself.
 */
export function runGo(args: readonly string[], run: GoRun): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, {
      cwd: run.cwd,
      env: { ...goEnvironment(run.caches), ...run.env },
      stdio: ["ignore", "pipe", 2],
    });
    let stdout = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new Error(
              "the Go toolchain (1.26 or newer) is needed to build the Kubernetes tools: https://go.dev/dl/",
            )
          : error,
      );
    });
    child.once("exit", (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`go ${args.join(" ")} failed (${code ?? signal ?? "unknown"}) in ${run.cwd}`));
    });
  });
}

/**
 * Downloads one module version into the module cache (if it is not there yet) and returns the
 * directory of its unpacked source: some tools ship data files there (the Kubernetes OpenAPI
 * spec, kwok's stages, skaffold's schemas).
 */
export async function moduleSourceDir(caches: GoCaches, moduleAtVersion: string): Promise<string> {
  await mkdir(caches.modCache, { recursive: true });
  const json = await runGo(["mod", "download", "-json", moduleAtVersion], { caches, cwd: caches.modCache });
  const { Dir: dir } = JSON.parse(json) as { Dir?: string };
  if (dir === undefined) throw new Error(`go mod download ${moduleAtVersion} reported no directory`);
  return dir;
}
