/**
 * What it takes to run our local ClickHouse: Debian's `clickhouse-server` 18.16 (ADR 0072:
 * ClickHouse from the Debian package, no containers), unpacked into the per-user cache
 * instead of installed, so nothing on the system changes: no package, no service, no user, no
 * apt state.
 *
 * How (ADR 0072):
 *   1. `apt-get update` into a private list directory of the cache (the system's package lists
 *      are neither read nor refreshed, so a machine whose lists are old or missing works too,
 *      and the hooks the system runs after an update are switched off);
 *   2. `apt-get install --download-only` of `clickhouse-server` into the cache: apt resolves the
 *      dependencies against the packages the system has, so only the missing libraries (Poco,
 *      re2, capnp, …, about 16 MB on a plain Debian 12) are fetched;
 *   3. `dpkg -x` of every fetched package into `root/`, then `ldconfig -n` on its library
 *      directories to create the shared-library links a package's postinst would have made;
 *   4. a check that the server binary finds every library with `LD_LIBRARY_PATH` on `root/`.
 *
 * The result is an artifact of the project's cache (scripts/cache/cached-artifact.ts):
 *   clickhouse-18.16-<hash>/root/      the unpacked packages (about 100 MB)
 *   clickhouse-18.16-<hash>/MANIFEST   the package versions
 */
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runInstallCommand } from "../cache/install-command.js";

/** The release line we run: Debian 12's package. Its quirks are in ADR 0055. */
export const clickHouseSeries = "18.16";
const packageName = "clickhouse-server";
const manifestName = "MANIFEST";
/** Where the packages put their shared libraries (Debian's multiarch directories). */
const libraryDirs = ["lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu"] as const;
const serverBinary = "usr/sbin/clickhouse-server";

/** Everything needed to start the server. */
export interface ClickHouseRuntime {
  /** The Debian version of the package, e.g. "18.16.1+ds-7.3+b2". */
  readonly version: string;
  /** The `clickhouse-server` executable. */
  readonly binary: string;
  /** The environment the binary needs: `LD_LIBRARY_PATH` on the unpacked libraries. */
  readonly env: Readonly<Record<string, string>>;
}

function runtimeOf(dir: string, version: string): ClickHouseRuntime {
  const root = join(dir, "root");
  return {
    version,
    binary: join(root, serverBinary),
    env: { LD_LIBRARY_PATH: libraryDirs.map((lib) => join(root, lib)).join(":") },
  };
}

/** Returns the runtime, installing it into the cache first if it is not there yet. */
export async function ensureClickHouseRuntime(options: ArtifactOptions = {}): Promise<ClickHouseRuntime> {
  const { dir } = await ensureArtifact(
    {
      name: `clickhouse-${clickHouseSeries}`,
      build: async (scratch) => {
        await unpackPackages(scratch);
      },
    },
    options,
  );
  const manifest = await readFile(join(dir, manifestName), "utf8");
  const version = new RegExp(`^${packageName} (\\S+)$`, "m").exec(manifest)?.[1];
  if (version === undefined) throw new Error(`${join(dir, manifestName)} names no ${packageName}`);
  return runtimeOf(dir, version);
}

/** Fetches and unpacks the packages into `dir`, and lists their versions in its MANIFEST. */
async function unpackPackages(dir: string): Promise<void> {
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
  const needsApt = "Debian's apt-get is needed to fetch ClickHouse (a Debian 12 machine, or one like it)";
  await runInstallCommand("apt-get", [...apt, "update"], { missing: needsApt });
  await runInstallCommand(
    "apt-get",
    [...apt, "install", "--download-only", "--no-install-recommends", "--yes", packageName],
    { missing: needsApt },
  );

  const debs = (await readdir(archives)).filter((name) => name.endsWith(".deb")).sort();
  const server = debs.find((name) => name.startsWith(`${packageName}_`));
  // File names are <name>_<version with ":" as "%3a">_<arch>.deb.
  const version = server?.split("_")[1]?.replaceAll("%3a", ":");
  if (version === undefined || !version.startsWith(`${clickHouseSeries}.`)) {
    throw new Error(
      `apt offers ${packageName} ${version ?? "(none)"}, not ${clickHouseSeries}.x: ` +
        "this machine's Debian release is not the one the project was tested on",
    );
  }
  const root = join(dir, "root");
  for (const deb of debs)
    await runInstallCommand("dpkg", ["-x", join(archives, deb), root], { missing: needsApt });
  const libraries = libraryDirs.map((lib) => join(root, lib));
  await Promise.all(libraries.map((lib) => mkdir(lib, { recursive: true })));
  // `-n`: only the directories named, no system cache written.
  await runInstallCommand(ldconfig(), ["-n", ...libraries], {
    missing: "ldconfig is needed to link the unpacked libraries",
  });

  const runtime = runtimeOf(dir, version);
  const linkage = await runInstallCommand("ldd", [runtime.binary], {
    missing: "ldd is needed to check the unpacked server",
    env: { ...process.env, ...runtime.env },
  });
  const missing = linkage.split("\n").filter((line) => line.includes("not found"));
  if (missing.length > 0) {
    throw new Error(`${packageName} still misses libraries after unpacking:\n${missing.join("\n")}`);
  }
  await rm(join(dir, "apt"), { recursive: true, force: true });
  const manifest = debs.map((name) =>
    name
      .replace(/\.deb$/, "")
      .split("_")
      .slice(0, 2)
      .join(" "),
  );
  await writeFile(join(dir, manifestName), `${manifest.join("\n").replaceAll("%3a", ":")}\n`);
}

/** `ldconfig` lives in /sbin, which a non-root PATH may not include. */
function ldconfig(): string {
  return "/sbin/ldconfig";
}
