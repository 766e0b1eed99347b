/**
 * `npm run build`: what production runs, as JavaScript (ADR 0020).
 *   1. regenerates code from proto/ when stale;
 *   2. compiles services/, the runtime's generated code and embedded/ to `.build/dist`, a tree
 *      that mirrors the repository (services/product/src/main.ts → .../main.js), so the
 *      workspaces' `exports` (each entry → a `./src/...js` file) resolve to the compiled files
 *      unchanged;
 *   3. copies the package.json of every workspace production runs, and the lockfile, beside
 *      them, so `npm ci --omit=dev` in a copy of `.build/dist` installs exactly the production
 *      dependencies (what an image does);
 *   4. links those workspaces under `.build/dist/node_modules/@commerce`, so the build also runs
 *      in place, on the repository's node_modules (the multi-process topology does).
 * Incremental: a second run without changes takes a few seconds. With --if-stale (before
 * `npm start`, ADR 0093) it does nothing when the fingerprint of what the build reads matches the
 * one recorded by the last build, and takes well under a second to find that out.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { withFileLock } from "./cache/file-lock.js";
import { filesUnder, fingerprintOf } from "./cache/input-fingerprint.js";

export const repoRoot = join(import.meta.dirname, "..");
export const distDir = join(repoRoot, ".build", "dist");
/** The platform of `npm start`, compiled. */
export const embeddedEntry = join(distDir, "embedded", "src", "main.js");
/** tsc's record of what it compiled (tsconfig.build.json), and the build's fingerprint. */
const buildInfoFile = join(repoRoot, ".build", "dist.tsbuildinfo");
const stampFile = join(repoRoot, ".build", "dist.fingerprint");

/** Files production reads that are not compiled code. */
const runtimeFiles = ["services/runtime/gen/openapi.json", "services/edge/site"];

interface RootPackage {
  readonly workspaces: readonly string[];
}

/**
 * Workspaces that production does not run: the typed client (client/) is for integrators' apps,
 * and the web app (web/) runs in browsers, from the files `npm run generate` bundled into the
 * edge's site folder (copied above). Left out of the build, `npm ci --omit=dev` leaves their
 * dependencies out of the images too.
 */
const notDeployed = new Set(["client", "web"]);

/** Workspace folders, relative to the root, as npm expands the root's `workspaces` globs. */
export function workspaceFolders(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as RootPackage;
  const output = execFileSync("npm", ["query", ".workspace"], { cwd: repoRoot, encoding: "utf8" });
  const found = (JSON.parse(output) as { path: string }[]).map((w) => relative(repoRoot, w.path));
  if (found.length === 0) throw new Error(`no workspaces found for ${workspaces.join(", ")}`);
  return found.sort();
}

/**
 * A digest of every file the build reads: the compiled folders with their generated code and the
 * files copied beside them (services/ and embedded/, specs too: simpler than mirroring the
 * build's excludes, and a spec's edit costs one incremental compile), the compiler's settings,
 * the manifests and the lockfile, and this script. Hashing them takes milliseconds, where tsc's
 * own incremental check takes seconds.
 */
export function buildFingerprint(): string {
  return fingerprintOf(repoRoot, [
    ...filesUnder(join(repoRoot, "services"), ["node_modules"]),
    ...filesUnder(join(repoRoot, "embedded"), ["node_modules"]),
    ...["tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"].map((file) =>
      join(repoRoot, file),
    ),
    import.meta.filename,
  ]);
}

/** Whether `.build/dist` holds the build of the files as they are now. */
export function isBuilt(): boolean {
  return (
    existsSync(embeddedEntry) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8") === buildFingerprint()
  );
}

function generateIfStale(): void {
  execFileSync(
    process.execPath,
    ["--import", "tsx", join(repoRoot, "scripts", "generate.ts"), "--if-stale"],
    { cwd: repoRoot, stdio: "inherit" },
  );
}

export function build(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): void {
  const started = Date.now();
  generateIfStale();
  compile();
  log(`built ${relative(repoRoot, distDir)} in ${Date.now() - started} ms`);
}

/**
 * Builds unless `.build/dist` is already the build of the files as they are: what `npm start`
 * and the platform started for tests run. Runs started at once take turns on a lock; the second
 * finds the first one's build. Resolves whether it built.
 */
export async function buildIfStale(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<boolean> {
  generateIfStale();
  if (isBuilt()) return false;
  mkdirSync(join(repoRoot, ".build"), { recursive: true });
  return withFileLock(join(repoRoot, ".build", "build.lock"), () => {
    const stale = !isBuilt();
    if (stale) {
      const started = Date.now();
      compile();
      log(`built ${relative(repoRoot, distDir)} in ${Date.now() - started} ms`);
    }
    return Promise.resolve(stale);
  });
}

/** Steps 2 to 4, then the fingerprint of what they read. */
function compile(): void {
  const fingerprint = buildFingerprint();
  // tsc's incremental record says nothing of whether its output is still there: without the
  // tree, it would emit nothing.
  if (!existsSync(distDir)) rmSync(buildInfoFile, { force: true });
  execFileSync(join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], {
    cwd: repoRoot,
    stdio: "inherit",
  });
  for (const file of ["package.json", "package-lock.json", ...runtimeFiles]) {
    // Replaced, not merged: the web app's bundles change names with their content.
    rmSync(join(distDir, file), { recursive: true, force: true });
    cpSync(join(repoRoot, file), join(distDir, file), { recursive: true });
  }
  const links = join(distDir, "node_modules", "@commerce");
  rmSync(links, { recursive: true, force: true });
  mkdirSync(links, { recursive: true });
  for (const folder of workspaceFolders().filter((folder) => !notDeployed.has(folder))) {
    mkdirSync(join(distDir, folder), { recursive: true });
    cpSync(join(repoRoot, folder, "package.json"), join(distDir, folder, "package.json"));
    const { name } = JSON.parse(readFileSync(join(repoRoot, folder, "package.json"), "utf8")) as {
      name: string;
    };
    symlinkSync(relative(links, join(distDir, folder)), join(links, name.replace("@commerce/", "")));
  }
  writeFileSync(stampFile, fingerprint);
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  if (process.argv.includes("--if-stale")) await buildIfStale();
  else build();
}
