/**
 * Jaeger v2, the OTLP backend of our tests and of `infra:up` (ADR 0067),
 * built from Go modules by the wrapper module in ./jaeger (its go.mod says why
 * a wrapper is needed and pins the version: the one place it is stated), into the project's
 * cache (scripts/cache/cached-artifact.ts).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, filesOf, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";

const moduleDir = join(import.meta.dirname, "jaeger");
const jaegerModule = "github.com/jaegertracing/jaeger";

/** The Jaeger version the wrapper module requires (`require github.com/jaegertracing/jaeger vX`). */
export async function jaegerVersion(): Promise<string> {
  const goMod = await readFile(join(moduleDir, "go.mod"), "utf8");
  const version = new RegExp(`^require ${jaegerModule.replaceAll(".", "\\.")} (v\\S+)$`, "m").exec(
    goMod,
  )?.[1];
  if (version === undefined) throw new Error(`${moduleDir}/go.mod does not require ${jaegerModule}`);
  return version;
}

/** Returns the path of the cached Jaeger binary, building it first if the cache has none. */
export async function ensureJaeger(options: ArtifactOptions = {}): Promise<string> {
  const version = await jaegerVersion();
  // No symbol table (a smaller binary), and the version Jaeger's own release build stamps in
  // (otherwise `jaeger version` and its build_info metric say "").
  const ldflags = `-s -w -X ${jaegerModule}/internal/version.latestVersion=${version}`;
  const tool = await ensureArtifact(
    {
      name: `jaeger-${version}`,
      inputs: [ldflags, ...(await filesOf(moduleDir, ["go.mod", "go.sum", "tools.go"]))],
      build: async (dir) => {
        await runGo(["build", "-ldflags", ldflags, "-o", join(dir, "jaeger"), `${jaegerModule}/cmd/jaeger`], {
          cwd: moduleDir,
        });
      },
    },
    options,
  );
  return join(tool.dir, "jaeger");
}
