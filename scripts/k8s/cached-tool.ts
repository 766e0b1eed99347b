/**
 * One folder per built tool in the Kubernetes toolchain's cache, named after the tool, its
 * version and a hash of everything its build depends on (versions, flags, the wrapper module's
 * files, our converter's source). A folder is built under a scratch name and renamed into place
 * once complete, with a stamp file written last, so an interrupted or concurrent build never
 * leaves a half-filled folder under the final name, and a second run costs nothing.
 *
 * Layout under `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform/k8s`:
 *   <tool>-<version>-<hash>/   the tool's binaries and data files, and STAMP
 *   go/mod, go/build           Go's module and build caches (go-command.ts): deletable
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defaultBinDir } from "../infra/infra-config.js";
import { goCachesUnder, type GoCaches } from "./go-command.js";

const stampName = "STAMP";

/** `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform/k8s`, beside the other cached tools. */
export function defaultKubeCacheRoot(env: NodeJS.ProcessEnv): string {
  return join(dirname(defaultBinDir(env)), "k8s");
}

/** What every tool's build is given. */
export interface ToolBuildContext {
  /** The toolchain's cache root (`defaultKubeCacheRoot`). */
  readonly root: string;
  readonly caches: GoCaches;
  /** Progress messages (a cold build takes minutes). */
  readonly log: (message: string) => void;
  /** Told of every tool that had to be built, and what it took. */
  readonly onBuilt?: (name: string, seconds: number) => void;
}

/** The build context for a cache root; Go's caches live inside it. */
export function toolBuildContext(
  root: string,
  log: (message: string) => void,
  onBuilt?: (name: string, seconds: number) => void,
): ToolBuildContext {
  return { root, caches: goCachesUnder(root), log, ...(onBuilt === undefined ? {} : { onBuilt }) };
}

export interface ToolRecipe {
  /** `<tool>-<version>`: the start of the folder's name. */
  readonly name: string;
  /** Everything the result depends on; hashed into the folder's name. */
  readonly inputs: readonly (string | Buffer)[];
  /** Fills the (empty) folder it is given. */
  readonly build: (dir: string) => Promise<void>;
}

export interface CachedTool {
  readonly dir: string;
  /** False when the cache already held it. */
  readonly built: boolean;
  /** What building it took (0 when cached). */
  readonly seconds: number;
}

function hashOf(inputs: readonly (string | Buffer)[]): string {
  const hash = createHash("sha256");
  for (const input of inputs) hash.update(input).update("\0");
  return hash.digest("hex").slice(0, 12);
}

/** The source files of a wrapper module, as build inputs. */
export async function moduleFiles(moduleDir: string, files: readonly string[]): Promise<Buffer[]> {
  return Promise.all(files.map((file) => readFile(join(moduleDir, file))));
}

/** Returns the tool's folder, building it first if the cache has no complete one. */
export async function ensureCachedTool(context: ToolBuildContext, recipe: ToolRecipe): Promise<CachedTool> {
  const { root, log } = context;
  const stamp = `${recipe.name}-${hashOf(recipe.inputs)}`;
  const dir = join(root, stamp);
  if (existsSync(join(dir, stampName))) return { dir, built: false, seconds: 0 };

  await mkdir(root, { recursive: true });
  const scratch = await mkdtemp(join(root, `${stamp}.partial-`));
  log(`building ${recipe.name} into ${dir}`);
  const started = performance.now();
  try {
    await recipe.build(scratch);
    await writeFile(join(scratch, stampName), `${stamp}\n`);
    // A folder without a stamp is what an older, interrupted layout left: replace it.
    if (existsSync(dir)) await rm(dir, { recursive: true, force: true });
    try {
      await rename(scratch, dir);
    } catch (error) {
      // Another build finished first: keep its folder.
      if (!existsSync(join(dir, stampName))) throw error;
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  log(`built ${recipe.name} in ${seconds.toFixed(1)} s`);
  context.onBuilt?.(recipe.name, seconds);
  return { dir, built: true, seconds };
}
