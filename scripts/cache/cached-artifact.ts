/**
 * The one way the project installs or builds something into its cache (cache-root.ts): every
 * tool, binary or set of files is an artifact, one folder named after what it is and a hash of
 * everything it is made from, filled once and then only read.
 *
 *   <root>/<name>-<hash>/          the artifact, with STAMP written last
 *   <root>/<name>-<hash>.lock      the lock its builders take (file-lock.ts); empty
 *   <root>/<name>-<hash>.partial-* a build in progress (or one that crashed: removed by the next)
 *
 * Safe when requested concurrently, in one process or in several (ADR 0069):
 *   - in one process, concurrent callers share one promise (single flight);
 *   - across processes, the builder holds the artifact's lock; a waiter takes the lock after it
 *     and finds the winner's STAMP, so it builds nothing;
 *   - a build fills a scratch folder with a unique name and renames it into place, so nobody
 *     ever sees a half-made artifact under the final name; a folder without its STAMP counts
 *     as missing.
 * scripts/cache/ensure-node.sh follows the same layout and lock in shell.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { projectCacheRoot } from "./cache-root.js";
import { withFileLock } from "./file-lock.js";

const stampName = "STAMP";

export interface ArtifactRecipe {
  /** What it is, with its version: `envoy-1.40.0`. The start of the folder's name. */
  readonly name: string;
  /** Everything the result depends on besides the name (flags, source files); hashed. */
  readonly inputs?: readonly (string | Buffer)[];
  /** Fills the (empty) folder it is given; throws if the result would not work. */
  readonly build: (dir: string) => Promise<void>;
}

/** Where artifacts live and who hears of their builds; every installer takes these. */
export interface ArtifactOptions {
  /** The folder artifacts live in; defaults to projectCacheRoot(). */
  readonly root?: string;
  /** Progress messages (a build may take minutes); defaults to our standard error. */
  readonly log?: (message: string) => void;
  /** Told of every artifact that had to be built here, and what it took. */
  readonly onBuilt?: (name: string, seconds: number) => void;
}

export interface Artifact {
  readonly dir: string;
  /** False when it was already there (or another process built it while we waited). */
  readonly built: boolean;
  /** What building it took here (0 when not built). */
  readonly seconds: number;
}

const inFlight = new Map<string, Promise<Artifact>>();

/** The artifact's folder, building it first if the cache has no complete one. */
export function ensureArtifact(recipe: ArtifactRecipe, options: ArtifactOptions = {}): Promise<Artifact> {
  const root = options.root ?? projectCacheRoot();
  const dir = join(root, `${recipe.name}-${hashOf(recipe.inputs ?? [])}`);
  const pending = inFlight.get(dir);
  if (pending !== undefined) return pending;
  const log = options.log ?? ((message: string) => process.stderr.write(`cache: ${message}\n`));
  const ensured = ensure(dir, recipe, log).finally(() => inFlight.delete(dir));
  inFlight.set(dir, ensured);
  return ensured.then((artifact) => {
    if (artifact.built) options.onBuilt?.(recipe.name, artifact.seconds);
    return artifact;
  });
}

async function ensure(
  dir: string,
  recipe: ArtifactRecipe,
  log: (message: string) => void,
): Promise<Artifact> {
  const stamp = basename(dir);
  if (await isComplete(dir, stamp)) return { dir, built: false, seconds: 0 };
  await mkdir(dirname(dir), { recursive: true });
  return withFileLock(
    `${dir}.lock`,
    async () => {
      // Whoever held the lock before us may have built it.
      if (await isComplete(dir, stamp)) return { dir, built: false, seconds: 0 };
      await removeLeftovers(dir);
      log(`building ${recipe.name} into ${dir}`);
      const started = performance.now();
      const scratch = await mkdtemp(`${dir}.partial-`);
      try {
        await recipe.build(scratch);
        await writeFile(join(scratch, stampName), `${stamp}\n`);
        // A folder without its stamp (an older layout, or emptied by hand) moves aside first:
        // rename cannot replace a folder that is not empty.
        await rename(dir, `${scratch}.old`).catch(() => undefined);
        await rename(scratch, dir);
      } finally {
        await Promise.all(
          [scratch, `${scratch}.old`].map((path) => rm(path, { recursive: true, force: true })),
        );
      }
      const seconds = (performance.now() - started) / 1000;
      log(`built ${recipe.name} in ${seconds.toFixed(1)} s`);
      return { dir, built: true, seconds };
    },
    { onWait: () => log(`waiting for another process building ${recipe.name}`) },
  );
}

async function isComplete(dir: string, stamp: string): Promise<boolean> {
  try {
    return (await readFile(join(dir, stampName), "utf8")) === `${stamp}\n`;
  } catch {
    return false;
  }
}

/** Scratch folders of builds that died; only called under the artifact's lock. */
async function removeLeftovers(dir: string): Promise<void> {
  const prefix = `${basename(dir)}.partial-`;
  const names = await readdir(dirname(dir));
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix))
      .map((name) => rm(join(dirname(dir), name), { recursive: true, force: true })),
  );
}

function hashOf(inputs: readonly (string | Buffer)[]): string {
  const hash = createHash("sha256");
  for (const input of inputs) hash.update(input).update("\0");
  return hash.digest("hex").slice(0, 12);
}

/** The contents of a source folder's files, as recipe inputs. */
export async function filesOf(dir: string, files: readonly string[]): Promise<Buffer[]> {
  return Promise.all(files.map((file) => readFile(join(dir, file))));
}
