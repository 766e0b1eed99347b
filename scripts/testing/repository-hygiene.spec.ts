/**
 * What a fresh clone must hold true of the repository itself:
 *   - it stands on its own: no file cites material outside it (the design notes the team
 *     works from are restated in docs/, which is what the code cites), nor a "spec" its reader
 *     does not have (the contract is proto/ and the API description generated from it);
 *   - every npm script runs a file that exists;
 *   - each workspace exports its named entries, each to a file that exists, never `./*`: a deep
 *     import into another package is refused (the runtime's generated code, `./gen/*`, aside);
 *   - every production dependency is used by production code (a declared, unused dependency
 *     is weight and attack surface in every image);
 *   - the lockfile names every optional dependency of the packages it holds, so that `npm ci`
 *     on a clean clone accepts it (ADR 0054: npm leaves out the platform packages the registry
 *     does not serve, and `npm ci` then refuses the lockfile);
 *   - decisions are cited by record number, and the records hold up: every `ADR NNNN` names a
 *     file of docs/adr, each record has its four parts and links only to files that exist, and
 *     the index lists every record and nothing else.
 */
import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const recordsDir = join(root, "docs", "adr");
const recordName = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;

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

  describe("decision records (docs/adr)", () => {
    const records = readdirSync(recordsDir).filter((name) => name !== "README.md");
    /** Every tracked file that is text (no NUL byte), whatever its name: comments cite from anywhere. */
    const texts = trackedFiles()
      .filter((path) => path !== "package-lock.json" && existsSync(join(root, path)))
      .map((path) => ({ path, text: readFileSync(join(root, path)) }))
      .filter(({ text }) => !text.includes(0))
      .map(({ path, text }) => ({ path, text: text.toString("utf8") }));

    it("are each named NNNN-kebab-title.md, one per number", () => {
      expect(records.filter((name) => !recordName.test(name))).to.deep.equal([]);
      const numbers = records.map((name) => name.slice(0, 4));
      expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).to.deep.equal([]);
    });

    it("are what every `ADR NNNN` in the repository names", () => {
      const numbers = new Set(records.map((name) => name.slice(0, 4)));
      const dangling = texts.flatMap(({ path, text }) =>
        [...text.matchAll(/\bADR (\d{4})\b/g)]
          .map((match) => match[1] ?? "")
          .filter((n) => !numbers.has(n))
          .map((n) => `${path}: ADR ${n}`),
      );
      expect(dangling).to.deep.equal([]);
    });

    it("replace the old citations: nothing cites the decisions file or a numbered architecture section", () => {
      // Built here, so that this file does not cite them itself.
      const decisionsFile = new RegExp(["decisions", "\\.md"].join(""));
      const numberedSection = new RegExp(["architecture", "\\.md\\W{0,12}", "\u00a7"].join(""));
      const citing = texts
        .filter(({ text }) => decisionsFile.test(text) || numberedSection.test(text))
        .map(({ path }) => path);
      expect(citing).to.deep.equal([]);
    });

    it("each have a numbered title, Context, Decision, Consequences and a last Backed by line", () => {
      const malformed = records.flatMap((name) => {
        const text = readFileSync(join(recordsDir, name), "utf8");
        const problems: string[] = [];
        if (!text.startsWith(`# ${name.slice(0, 4)}. `)) problems.push("title is not `# NNNN. Title`");
        const parts = ["## Context", "## Decision", "## Consequences"].map((heading) =>
          text.split("\n").indexOf(heading),
        );
        if (parts.some((at) => at < 0) || parts.some((at, i) => i > 0 && at < (parts[i - 1] ?? 0)))
          problems.push("lacks ## Context, ## Decision and ## Consequences, in that order");
        const paragraphs = text.trimEnd().split(/\n\s*\n/);
        const last = paragraphs.at(-1) ?? "";
        if (!/^Backed by: .*\]\(/s.test(last)) problems.push("does not end with a Backed by line that links");
        return problems.map((problem) => `${name}: ${problem}`);
      });
      expect(malformed).to.deep.equal([]);
    });

    it("link only to files that exist", () => {
      const broken = [...records, "README.md"].flatMap((name) =>
        [...readFileSync(join(recordsDir, name), "utf8").matchAll(/\]\(([^)\s]+)\)/g)]
          .map((match) => (match[1] ?? "").replace(/#.*$/, ""))
          .filter((target) => !/^[a-z]+:/.test(target) && !existsSync(join(recordsDir, target)))
          .map((target) => `${name} → ${target}`),
      );
      expect(broken).to.deep.equal([]);
    });

    it("are all listed in the index, docs/adr/README.md, and nothing else is", () => {
      const index = readFileSync(join(recordsDir, "README.md"), "utf8");
      const listed = [...index.matchAll(/\]\((\d{4}-[^)\s]+\.md)\)/g)].map((match) => match[1] ?? "");
      expect([...new Set(listed)].sort()).to.deep.equal([...records].sort());
    });
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

  it("has each workspace export its named entries, not every file (the runtime's generated code aside)", () => {
    const { workspaces } = JSON.parse(read("package.json")) as { workspaces: readonly string[] };
    const folders = workspaces.flatMap((pattern) =>
      pattern.endsWith("/*")
        ? readdirSync(join(root, pattern.slice(0, -2)))
            .map((name) => `${pattern.slice(0, -2)}/${name}`)
            .filter((folder) => existsSync(join(root, folder, "package.json")))
        : [pattern],
    );
    const problems = folders.flatMap((folder) => {
      const { name, exports } = JSON.parse(read(`${folder}/package.json`)) as {
        name: string;
        exports?: Record<string, string>;
      };
      return Object.entries(exports ?? {}).flatMap(([entry, target]) => {
        if (entry.includes("*"))
          return name === "@commerce/runtime" && entry === "./gen/*" ? [] : [`${name}: ${entry}`];
        const source = join(root, folder, target.replace(/\.js$/, ".ts"));
        return existsSync(source) || existsSync(join(root, folder, target))
          ? []
          : [`${name}: ${entry} → ${target}`];
      });
    });
    expect(folders).to.include("services/runtime");
    expect(problems).to.deep.equal([]);
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
