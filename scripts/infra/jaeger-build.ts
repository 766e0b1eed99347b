/**
 * Jaeger v2, the OTLP backend of our tests and of `infra:up` (docs/decisions.md,
 * "Observability"), built from Go modules by the wrapper module in ./jaeger (its go.mod says why
 * a wrapper is needed and pins the version: the one place it is stated).
 *
 * The binary is cached like the Kubernetes tools (scripts/k8s/cached-tool.ts): one folder per
 * version and wrapper content, filled under a scratch name and renamed into place, its stamp
 * written last. Layout under `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform/otel`:
 *   jaeger-<version>-<hash>/jaeger   the binary, and STAMP
 *   go/mod, go/build                 Go's module and build caches (about 1.3 GB and 1.6 GB): deletable
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ensureCachedTool, moduleFiles, toolBuildContext } from "../k8s/cached-tool.js";
import { runGo } from "../k8s/go-command.js";
import { defaultBinDir } from "./infra-config.js";

const moduleDir = join(import.meta.dirname, "jaeger");
const jaegerModule = "github.com/jaegertracing/jaeger";
/** `go build` flags beside go-command.ts's own: no symbol table, a smaller binary. */
const ldflags = "-s -w";

/** `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform/otel`, beside the other cached tools. */
export function defaultOtelCacheRoot(env: NodeJS.ProcessEnv): string {
  return join(dirname(defaultBinDir(env)), "otel");
}

/** The Jaeger version the wrapper module requires (`require github.com/jaegertracing/jaeger vX`). */
export async function jaegerVersion(): Promise<string> {
  const goMod = await readFile(join(moduleDir, "go.mod"), "utf8");
  const version = new RegExp(`^require ${jaegerModule.replaceAll(".", "\\.")} (v\\S+)$`, "m").exec(
    goMod,
  )?.[1];
  if (version === undefined) throw new Error(`${moduleDir}/go.mod does not require ${jaegerModule}`);
  return version;
}

export interface JaegerBuildOptions {
  /** Defaults to `defaultOtelCacheRoot`. */
  readonly cacheRoot?: string;
  /** Progress messages (a cold build downloads modules and compiles for minutes). */
  readonly log?: (message: string) => void;
}

/** Returns the path of the cached Jaeger binary, building it first if the cache has none. */
export async function ensureJaeger(options: JaegerBuildOptions = {}): Promise<string> {
  const log = options.log ?? ((message: string) => process.stderr.write(`jaeger: ${message}\n`));
  const context = toolBuildContext(options.cacheRoot ?? defaultOtelCacheRoot(process.env), log);
  const version = await jaegerVersion();
  const tool = await ensureCachedTool(context, {
    name: `jaeger-${version}`,
    inputs: [ldflags, ...(await moduleFiles(moduleDir, ["go.mod", "go.sum", "tools.go"]))],
    build: async (dir) => {
      await runGo(["build", "-ldflags", ldflags, "-o", join(dir, "jaeger"), `${jaegerModule}/cmd/jaeger`], {
        caches: context.caches,
        cwd: moduleDir,
      });
    },
  });
  return join(tool.dir, "jaeger");
}
