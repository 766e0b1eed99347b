/**
 * `buf breaking` against the contract as it was on main (or, on main itself, one commit back):
 * a field renamed, renumbered or retyped fails the build. The baseline is built here from git,
 * with the same staged third-party imports, because buf cannot fetch them from a registry.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const buf = join(root, "node_modules", ".bin", "buf");
const git = (...args: string[]): string => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
const tryGit = (...args: string[]): string | undefined => {
  try {
    return git(...args);
  } catch {
    return undefined;
  }
};

const head = tryGit("rev-parse", "HEAD");
const main = tryGit("rev-parse", "--verify", "--quiet", "main");
const baseline =
  main !== undefined && main !== head ? main : tryGit("rev-parse", "--verify", "--quiet", "HEAD^");
if (baseline === undefined || tryGit("cat-file", "-e", `${baseline}:proto`) === undefined) {
  console.log("buf breaking: no earlier contract to compare with");
  process.exit(0);
}

const work = join(root, ".build", "breaking");
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
execFileSync("sh", ["-c", `git archive ${baseline} proto | tar -x -C "${work}"`], { cwd: root });
const deps = join(root, ".build", "proto-deps");
if (!existsSync(deps)) throw new Error("run `npm run generate` first (it stages .build/proto-deps)");
// The baseline is laid out like the workspace (same buf.yaml, same module paths), so both sides
// have the same modules and the same lint/breaking ignores.
cpSync(deps, join(work, ".build", "proto-deps"), { recursive: true });
cpSync(join(root, "buf.yaml"), join(work, "buf.yaml"));
execFileSync(buf, ["breaking", "--against", work], { cwd: root, stdio: "inherit" });
console.log(`buf breaking: no breaking change since ${baseline.slice(0, 12)}`);
