/**
 * The Go commands that build the project's Go tools (FerretDB's launcher, Jaeger, the
 * Kubernetes toolchain). They use Go's own module and build caches, wherever the environment
 * puts them (`go env GOMODCACHE GOCACHE`): those are the toolchain's caches, shared with every
 * other Go build on the machine and kept warm across project caches, so an empty project cache
 * costs links, not the 3 GB of downloads and the compilation behind them (ADR 0069).
 * `-modcacherw` keeps downloaded modules deletable.
 */
import { tmpdir } from "node:os";
import { runInstallCommand } from "./install-command.js";

const missingGo =
  "the Go toolchain (1.26 or newer) is needed to build the project's tools: https://go.dev/dl/";

function goEnvironment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
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
  /** The module directory to run in (a wrapper module), or any directory for `go install x@v`. */
  readonly cwd: string;
  /** Variables added to the Go environment (e.g. GOBIN). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs `go <args>` and resolves with its standard output. */
export function runGo(args: readonly string[], run: GoRun): Promise<string> {
  return runInstallCommand("go", args, {
    missing: missingGo,
    cwd: run.cwd,
    env: { ...goEnvironment(), ...run.env },
  });
}

/**
 * Downloads one module version into Go's module cache (if it is not there yet) and returns the
 * directory of its unpacked source: some tools ship data files there (the Kubernetes OpenAPI
 * spec, kwok's stages, skaffold's schemas).
 */
export async function moduleSourceDir(moduleAtVersion: string): Promise<string> {
  const json = await runGo(["mod", "download", "-json", moduleAtVersion], { cwd: tmpdir() });
  const { Dir: dir } = JSON.parse(json) as { Dir?: string };
  if (dir === undefined) throw new Error(`go mod download ${moduleAtVersion} reported no directory`);
  return dir;
}
