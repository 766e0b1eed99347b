/**
 * Where the local infrastructure lives and how it is reached, read once from the environment
 * (configuration is read once and injected, as everywhere in the platform).
 *
 * - Built binaries go to a per-user cache outside the repo, so a fresh clone or a `git clean`
 *   does not pay for the FerretDB build again.
 * - Running state (data, pid files, logs) goes to `<repo>/.infra/`, which is gitignored, so
 *   each checkout has its own instances and `rm -rf .infra` resets them.
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

export interface InfraConfig {
  readonly repoRoot: string;
  /** `<repo>/.infra`: one subdirectory per component. */
  readonly stateDir: string;
  /** `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform/bin`. */
  readonly binDir: string;
  /** Loopback port of the shared FerretDB (`FERRETDB_PORT`, default 27217). */
  readonly ferretDbPort: number;
}

/** The repository root, found from this file rather than the working directory. */
export const repoRoot = join(import.meta.dirname, "..", "..");

/** Thrown for a bad environment value, with a message that names the variable. */
export class InfraConfigError extends Error {
  override readonly name = "InfraConfigError";
}

/** The per-user binary cache; also the default for callers that start instances themselves. */
export function defaultBinDir(env: NodeJS.ProcessEnv): string {
  const xdg = env["XDG_CACHE_HOME"];
  const cacheHome = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env["HOME"] ?? homedir(), ".cache");
  return join(cacheHome, "commerce-platform", "bin");
}

/** Reads a TCP port from the environment variable `name`, or `fallback` when it is unset or empty. */
export function readPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new InfraConfigError(`${name} must be a TCP port between 1 and 65535, got "${raw}"`);
  }
  return port;
}

export function readInfraConfig(env: NodeJS.ProcessEnv): InfraConfig {
  return {
    repoRoot,
    stateDir: join(repoRoot, ".infra"),
    binDir: defaultBinDir(env),
    ferretDbPort: readPort(env, "FERRETDB_PORT", 27217),
  };
}
