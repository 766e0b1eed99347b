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
 * Incremental: a second run without changes takes a few seconds.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join, relative } from "node:path";

export const repoRoot = join(import.meta.dirname, "..");
export const distDir = join(repoRoot, ".build", "dist");

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

export function build(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): void {
  const started = Date.now();
  execFileSync(
    process.execPath,
    ["--import", "tsx", join(repoRoot, "scripts", "generate.ts"), "--if-stale"],
    {
      cwd: repoRoot,
      stdio: "inherit",
    },
  );
  execFileSync(join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], {
    cwd: repoRoot,
    stdio: "inherit",
  });
  for (const file of ["package.json", "package-lock.json", ...runtimeFiles]) {
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
  log(`built ${relative(repoRoot, distDir)} in ${Date.now() - started} ms`);
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) build();
