/**
 * What a fresh clone must hold true of the repository itself:
 *   - it stands on its own: no file cites material outside it (the design notes the team
 *     works from are restated in docs/, which is what the code cites), nor a "spec" its reader
 *     does not have (the contract is proto/ and the API description generated from it);
 *   - every npm script runs a file that exists;
 *   - every production dependency is used by production code (a declared, unused dependency
 *     is weight and attack surface in every image);
 *   - the lockfile names every optional dependency of the packages it holds, so that `npm ci`
 *     on a clean clone accepts it (ADR 0054: npm leaves out the
 *     platform packages the registry does not serve, and `npm ci` then refuses the lockfile).
 */
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

/** Files git tracks, as paths from the root. */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((path) => path !== "");
}

const textFile = /\.(ts|js|mjs|cjs|json|md|yaml|yml|proto|lua|txt)$|(^|\/)[A-Za-z]+file$/;
const testCode = /(\.spec\.ts|\.contract\.ts)$|(^|\/)(testing|test|scripts)\//;

interface LockedPackage {
  readonly optionalDependencies?: Record<string, string>;
}

interface PackageJson {
  readonly scripts: Record<string, string>;
  readonly dependencies: Record<string, string>;
}

describe("the repository", () => {
  const files = trackedFiles().filter((path) => textFile.test(path) && path !== "package-lock.json");
  const read = (path: string): string => readFileSync(join(root, path), "utf8");

  it("cites only itself: no file points at design notes outside the repository", () => {
    // Spelled in pieces, so that this file does not cite them itself.
    const outside = [
      ["DESIGN", ".md"],
      ["CONVENTIONS", ".md"],
      ["../", "shared"],
    ].map((parts) => parts.join(""));
    const citing = files.filter((path) => outside.some((name) => read(path).includes(name)));
    expect(citing).to.deep.equal([]);
  });

  it("names its contract as the contract, never as a spec the reader does not have", () => {
    // The word as a noun after "the"; `*.spec.ts` file names and `spec.template` are fine.
    const spec = /\bthe (product )?spec('s)?\b(?![.\w-])/i;
    expect(files.filter((path) => spec.test(read(path)))).to.deep.equal([]);
  });

  it("holds no unresolved merge: no conflict marker at the start of a line", () => {
    // Built here, so that this file holds none itself.
    const marker = new RegExp(`^\\s*(${["<", ">"].map((c) => c.repeat(7)).join("|")})( |$)`, "m");
    expect(files.filter((path) => marker.test(read(path)))).to.deep.equal([]);
  });

  it("runs only files that exist from its npm scripts", () => {
    const { scripts } = JSON.parse(read("package.json")) as PackageJson;
    const missing = Object.entries(scripts).flatMap(([name, command]) =>
      [...command.matchAll(/(?:^|\s)((?:scripts|embedded|services)\/\S+\.(?:ts|mjs|js))/g)]
        .map((match) => match[1] ?? "")
        .filter((path) => !existsSync(join(root, path)))
        .map((path) => `${name}: ${path}`),
    );
    expect(missing).to.deep.equal([]);
  });

  it("uses every production dependency in production code", () => {
    const { dependencies } = JSON.parse(read("package.json")) as PackageJson;
    const production = files
      .filter((path) => /^(services|embedded)\/.*\.ts$/.test(path) && !testCode.test(path))
      .map(read)
      .join("\n");
    const unused = Object.keys(dependencies).filter((name) => !production.includes(`"${name}`));
    expect(unused).to.deep.equal([]);
  });

  it("lists every optional dependency of its packages in the lockfile, as npm ci requires", () => {
    const { packages } = JSON.parse(read("package-lock.json")) as { packages: Record<string, LockedPackage> };
    const missing = Object.entries(packages).flatMap(([path, locked]) =>
      Object.keys(locked.optionalDependencies ?? {})
        .filter((name) => !resolvable(packages, path, name))
        .map((name) => `${path || "(root)"} → ${name}`),
    );
    expect(missing).to.deep.equal([]);
  });
});

/** True when `name`, required from the package at `path`, has a lockfile entry Node would find. */
function resolvable(packages: Record<string, LockedPackage>, path: string, name: string): boolean {
  for (let dir = path; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    if (`${dir === "" ? "" : `${dir}/`}node_modules/${name}` in packages) return true;
    if (dir === "") return false;
  }
}
