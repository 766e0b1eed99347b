/**
 * What it takes to run our local ClickHouse: Debian's `clickhouse-server` 18.16 (docs/architecture.md
 * §6: ClickHouse from the Debian package, no containers), unpacked into the per-user cache
 * instead of installed, so nothing on the system changes: no package, no service, no user, no
 * apt state.
 *
 * How (docs/decisions.md, "Analytics store"):
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
 * Layout under `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform`:
 *   clickhouse-18.16/root/        the unpacked packages (about 100 MB)
 *   clickhouse-18.16/MANIFEST     the package versions; written last, so its presence means done
 *
 * The directory is filled under a temporary name and renamed into place, so an interrupted or
 * concurrent install never leaves a half-filled directory under the final name. A second run
 * only checks that the manifest and the binary are there.
 */
import { spawn } from "node:child_process";
import { access, mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The release line we run: Debian 12's package. Its quirks are in docs/decisions.md. */
export const clickHouseSeries = "18.16";
const packageName = "clickhouse-server";
const manifestName = "MANIFEST";
/** Where the packages put their shared libraries (Debian's multiarch directories). */
const libraryDirs = ["lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu"] as const;
const serverBinary = "usr/sbin/clickhouse-server";

export interface ClickHouseRuntimeOptions {
  /** `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform`. */
  readonly cacheRoot: string;
  /** Progress messages (the first install fetches about 30 MB). */
  readonly log: (message: string) => void;
}

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

/** The package version a complete directory was made from, or undefined if it is not complete. */
async function installedVersion(dir: string): Promise<string | undefined> {
  try {
    const manifest = await readFile(join(dir, manifestName), "utf8");
    const version = new RegExp(`^${packageName} (\\S+)$`, "m").exec(manifest)?.[1];
    if (version === undefined) return undefined;
    await access(join(dir, "root", serverBinary));
    return version;
  } catch {
    return undefined;
  }
}

/** Returns the runtime, installing it into the cache first if it is not there yet. */
export async function ensureClickHouseRuntime(options: ClickHouseRuntimeOptions): Promise<ClickHouseRuntime> {
  const dir = join(options.cacheRoot, `clickhouse-${clickHouseSeries}`);
  const cached = await installedVersion(dir);
  if (cached !== undefined) return runtimeOf(dir, cached);

  await mkdir(options.cacheRoot, { recursive: true });
  const partial = `${dir}.partial-${process.pid}`;
  const stale = `${dir}.stale-${process.pid}`;
  options.log(`installing Debian's ${packageName} ${clickHouseSeries} into ${dir}`);
  const started = performance.now();
  try {
    await rm(partial, { recursive: true, force: true });
    const version = await unpackPackages(partial);
    // A concurrent install may have finished first; its result is as good as ours.
    const theirs = await installedVersion(dir);
    if (theirs !== undefined) return runtimeOf(dir, theirs);
    // A broken directory moves aside first: rename cannot replace a non-empty one.
    await rename(dir, stale).catch(() => undefined);
    await rename(partial, dir);
    options.log(
      `installed ${packageName} ${version} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return runtimeOf(dir, version);
  } finally {
    await Promise.all([partial, stale].map((path) => rm(path, { recursive: true, force: true })));
  }
}

/** Fetches and unpacks the packages into `dir`; returns the server package's version. */
async function unpackPackages(dir: string): Promise<string> {
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
  await run("apt-get", [...apt, "update"], needsApt);
  await run(
    "apt-get",
    [...apt, "install", "--download-only", "--no-install-recommends", "--yes", packageName],
    needsApt,
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
  for (const deb of debs) await run("dpkg", ["-x", join(archives, deb), root], needsApt);
  const libraries = libraryDirs.map((lib) => join(root, lib));
  await Promise.all(libraries.map((lib) => mkdir(lib, { recursive: true })));
  // `-n`: only the directories named, no system cache written.
  await run(ldconfig(), ["-n", ...libraries], "ldconfig is needed to link the unpacked libraries");

  const runtime = runtimeOf(dir, version);
  const linkage = await output("ldd", [runtime.binary], runtime.env);
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
  return version;
}

/** `ldconfig` lives in /sbin, which a non-root PATH may not include. */
function ldconfig(): string {
  return "/sbin/ldconfig";
}

/** Runs a tool with its output on our stderr (stdout is reserved for `infra:up`'s lines). */
function run(command: string, args: readonly string[], missing: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", 2, 2] });
    child.once("error", (error: NodeJS.ErrnoException) => {
      reject(error.code === "ENOENT" ? new Error(`${command} not found: ${missing}`) : error);
    });
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} failed (${code ?? signal ?? "unknown"})`));
    });
  });
}

/** Runs a command and returns its standard output. */
function output(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...env },
    });
    let text = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve(text);
      else reject(new Error(`${command} ${args.join(" ")} failed (${code ?? signal ?? "unknown"})`));
    });
  });
}
