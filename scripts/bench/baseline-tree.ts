/**
 * The code of another revision, built and runnable beside the working tree's, so that a bench
 * part can measure before and after a change in one run (the same machine, the same minutes).
 *
 * The revision's files are exported with `git archive` into `.build/baseline/<commit>` (no git
 * worktree is registered, so nothing is left behind in the repository's metadata), get their
 * dependencies, and are generated and built by the revision's own scripts. An export that built
 * once is reused by later runs.
 *
 * A revision with the working tree's lockfile shares its installed packages (one link per
 * package in `node_modules`, but its own workspaces under `@commerce`, which point into the
 * export). One whose lockfile differs installs its own from that lockfile (`npm ci`, from npm's
 * cache when it can), so that it runs on the packages it was written against.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

const repoRoot = join(import.meta.dirname, "..", "..");
const baselinesDir = join(repoRoot, ".build", "baseline");

export interface BaselineTree {
  /** The full commit the revision names. */
  readonly commit: string;
  /** The export's root: its `scripts/`, `services/` and built `.build/dist`. */
  readonly root: string;
  /** True when its lockfile is not the working tree's, and it runs on its own install (see above). */
  readonly ownDependencies: boolean;
}

function git(args: readonly string[]): Buffer {
  return execFileSync("git", args, { cwd: repoRoot, maxBuffer: 256 << 20 });
}

/** Links the working tree's packages into `root/node_modules`, but `@commerce` to its own workspaces. */
function linkDependencies(root: string): void {
  const modules = join(root, "node_modules");
  mkdirSync(modules, { recursive: true });
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry === "@commerce") continue;
    symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
  }
  const own = join(modules, "@commerce");
  mkdirSync(own);
  // The same relative links npm made, so they resolve inside the export.
  const commerce = join(repoRoot, "node_modules", "@commerce");
  for (const name of readdirSync(commerce)) symlinkSync(readlinkSync(join(commerce, name)), join(own, name));
}

/** The revision `revision`, exported, generated and built; `log` hears the steps that take time. */
export function prepareBaselineTree(revision: string, log: (line: string) => void): BaselineTree {
  const commit = git(["rev-parse", "--verify", `${revision}^{commit}`])
    .toString()
    .trim();
  const root = join(baselinesDir, commit);
  const builtStamp = join(root, ".build", "baseline-built");
  const ownDependencies =
    git(["show", `${commit}:package-lock.json`]).toString() !==
    readFileSync(join(repoRoot, "package-lock.json"), "utf8");
  if (existsSync(builtStamp)) return { commit, root, ownDependencies };

  log(`baseline: exporting ${revision} (${commit.slice(0, 12)}) to ${root}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  execFileSync("tar", ["-x", "-C", root], { input: git(["archive", commit]) });
  if (ownDependencies) {
    log("baseline: installing its own dependencies (its lockfile differs)");
    execFileSync("npm", ["ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
  } else linkDependencies(root);
  log("baseline: generating and building it");
  execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts", "build.ts")], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  writeFileSync(builtStamp, `${commit}\n`);
  return { commit, root, ownDependencies };
}
