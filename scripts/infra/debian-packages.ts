/**
 * Debian packages unpacked into the project's cache instead of installed (ADR 0072): how the
 * tests get ClickHouse (clickhouse-runtime.ts) and Chromium (chromium.ts) without changing
 * anything on the system: no package, no service, no user, no apt state.
 *
 * How:
 *   1. `apt-get update` into a private list directory of the artifact (the system's package
 *      lists are neither read nor refreshed, so a machine whose lists are old or missing works
 *      too, and the hooks the system runs after an update are switched off);
 *   2. `apt-get install --download-only --reinstall` of the recipe's packages: apt resolves the
 *      dependencies against the packages the system has, so only the libraries the machine
 *      lacks are fetched, while the recipe's own packages are fetched even when the system has
 *      them (their files must be in the artifact, not borrowed from the system);
 *   3. `dpkg -x` of every fetched package into `root/`, then `ldconfig -n` on its library
 *      directories to create the shared-library links a package's postinst would have made;
 *   4. a check that the recipe's binary finds every library with `LD_LIBRARY_PATH` on `root/`.
 *
 * The result is an artifact of the project's cache (scripts/cache/cached-artifact.ts):
 *   <name>-<hash>/root/      the unpacked packages
 *   <name>-<hash>/MANIFEST   the versions of the packages fetched, one `<package> <version>` a line
 *   <name>-<hash>/<file>     the recipe's own files, if any (a configuration naming root/)
 */
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runInstallCommand } from "../cache/install-command.js";

const manifestName = "MANIFEST";
/** Where packages put their shared libraries (Debian's multiarch directories). */
const multiarchLibraryDirs = ["lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu"] as const;

/** What to unpack, and what must work afterwards. */
export interface DebianPackagesRecipe {
  /** The artifact's name, with the release line where one is pinned: `clickhouse-18.16`. */
  readonly name: string;
  /** What the packages make up, for messages: "ClickHouse". */
  readonly purpose: string;
  /** The packages whose files the artifact must hold; the first is the one whose version counts. */
  readonly packages: readonly [string, ...string[]];
  /** The release line the first package must be of ("18.16" accepts 18.16.x); any when absent. */
  readonly series?: string;
  /** The executable, under `root/`, that must find every library it links. */
  readonly binary: string;
  /** Library directories under `root/` besides Debian's multiarch ones. */
  readonly libraryDirs?: readonly string[];
  /** Files of ours written beside `root/`, by name (a configuration that finds `root/`). */
  readonly files?: Readonly<Record<string, string>>;
}

/** The unpacked packages, ready to run from. */
export interface DebianPackages {
  /** The artifact's folder: `root/`, the MANIFEST and the recipe's files. */
  readonly dir: string;
  /** The Debian version of the recipe's first package, e.g. "18.16.1+ds-7.3+b2". */
  readonly version: string;
  /** The recipe's binary, as an absolute path. */
  readonly binary: string;
  /** `LD_LIBRARY_PATH` on the unpacked library directories. */
  readonly env: { readonly LD_LIBRARY_PATH: string };
}

/** Returns the unpacked packages, fetching and unpacking them into the cache first if needed. */
export async function ensureDebianPackages(
  recipe: DebianPackagesRecipe,
  options: ArtifactOptions = {},
): Promise<DebianPackages> {
  const files = Object.entries(recipe.files ?? {});
  const { dir } = await ensureArtifact(
    {
      name: recipe.name,
      // What decides the artifact's contents; the versions are apt's on the day it is built.
      inputs: [
        `packages: ${recipe.packages.join(" ")}`,
        `library dirs: ${(recipe.libraryDirs ?? []).join(" ")}`,
        ...files.flat(),
      ],
      build: async (scratch) => {
        await unpack(recipe, scratch);
        await Promise.all(files.map(([name, text]) => writeFile(join(scratch, name), text)));
      },
    },
    options,
  );
  const manifest = await readFile(join(dir, manifestName), "utf8");
  const [main] = recipe.packages;
  const version = new RegExp(`^${main} (\\S+)$`, "m").exec(manifest)?.[1];
  if (version === undefined) throw new Error(`${join(dir, manifestName)} names no ${main}`);
  return unpackedAt(recipe, dir, version);
}

function unpackedAt(recipe: DebianPackagesRecipe, dir: string, version: string): DebianPackages {
  const root = join(dir, "root");
  return {
    dir,
    version,
    binary: join(root, recipe.binary),
    env: { LD_LIBRARY_PATH: libraryDirsOf(recipe, root).join(":") },
  };
}

function libraryDirsOf(recipe: DebianPackagesRecipe, root: string): string[] {
  return [...multiarchLibraryDirs, ...(recipe.libraryDirs ?? [])].map((lib) => join(root, lib));
}

/** Fetches and unpacks the packages into `dir`, and lists their versions in its MANIFEST. */
async function unpack(recipe: DebianPackagesRecipe, dir: string): Promise<void> {
  const lists = join(dir, "apt", "lists");
  const archives = join(dir, "apt", "archives");
  await mkdir(join(lists, "partial"), { recursive: true });
  await mkdir(join(archives, "partial"), { recursive: true });
  // The hooks the system's configuration runs after `apt-get update` (Debian images clear
  // /var/cache/apt, desktops refresh their AppStream and PackageKit caches) are about the
  // system's lists, not ours: they are cleared, so fetching ours changes nothing outside.
  const noHooks = join(dir, "apt", "no-hooks.conf");
  await writeFile(
    noHooks,
    ["Pre-Invoke", "Post-Invoke", "Post-Invoke-Success"]
      .map((hook) => `#clear APT::Update::${hook};\n`)
      .join(""),
  );
  // Private lists and caches; no lock on the system's dpkg database (nothing is installed);
  // downloads run as the current user (apt's `_apt` sandbox user cannot write to a home cache).
  const apt = [
    "-qq",
    "-c",
    noHooks,
    "-o",
    `Dir::State::Lists=${lists}`,
    "-o",
    `Dir::Cache=${join(dir, "apt")}`,
    "-o",
    `Dir::Cache::archives=${archives}`,
    "-o",
    "Debug::NoLocking=1",
    "-o",
    "APT::Sandbox::User=root",
  ];
  const needsApt = `Debian's apt-get is needed to fetch ${recipe.purpose} (a Debian 12 machine, or one like it)`;
  await runInstallCommand("apt-get", [...apt, "update"], { missing: needsApt });
  await runInstallCommand(
    "apt-get",
    [
      ...apt,
      "install",
      "--download-only",
      "--reinstall",
      "--no-install-recommends",
      "--yes",
      ...recipe.packages,
    ],
    { missing: needsApt },
  );

  const debs = (await readdir(archives)).filter((name) => name.endsWith(".deb")).sort();
  // File names are <name>_<version with ":" as "%3a">_<arch>.deb.
  const fetched = new Map(
    debs.map((deb) => {
      const [name = "", version = ""] = deb.split("_");
      return [name, version.replaceAll("%3a", ":")];
    }),
  );
  const notFetched = recipe.packages.filter((name) => !fetched.has(name));
  if (notFetched.length > 0) {
    throw new Error(`apt fetched no ${notFetched.join(", ")} for ${recipe.purpose}`);
  }
  const [main] = recipe.packages;
  const version = fetched.get(main) ?? "";
  if (recipe.series !== undefined && !version.startsWith(`${recipe.series}.`)) {
    throw new Error(
      `apt offers ${main} ${version}, not ${recipe.series}.x: ` +
        "this machine's Debian release is not the one the project was tested on",
    );
  }
  const root = join(dir, "root");
  for (const deb of debs)
    await runInstallCommand("dpkg", ["-x", join(archives, deb), root], { missing: needsApt });
  const libraries = libraryDirsOf(recipe, root);
  await Promise.all(libraries.map((lib) => mkdir(lib, { recursive: true })));
  // `-n`: only the directories named, no system cache written.
  await runInstallCommand(ldconfig(), ["-n", ...libraries], {
    missing: "ldconfig is needed to link the unpacked libraries",
  });

  const unpacked = unpackedAt(recipe, dir, version);
  const linkage = await runInstallCommand("ldd", [unpacked.binary], {
    missing: `ldd is needed to check the unpacked ${recipe.purpose}`,
    env: { ...process.env, ...unpacked.env },
  });
  const missing = linkage.split("\n").filter((line) => line.includes("not found"));
  if (missing.length > 0) {
    throw new Error(`${recipe.binary} still misses libraries after unpacking:\n${missing.join("\n")}`);
  }
  await rm(join(dir, "apt"), { recursive: true, force: true });
  const manifest = [...fetched].map(([name, packageVersion]) => `${name} ${packageVersion}\n`);
  await writeFile(join(dir, manifestName), manifest.join(""));
}

/** `ldconfig` lives in /sbin, which a non-root PATH may not include. */
function ldconfig(): string {
  return "/sbin/ldconfig";
}
