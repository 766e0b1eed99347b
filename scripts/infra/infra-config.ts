/**
 * Where the local infrastructure lives and how it is reached, read once from the environment
 * (configuration is read once and injected, as everywhere in the platform).
 *
 * - What is installed or built goes to the project's cache outside the repo
 *   (scripts/cache/cache-root.ts), so a fresh clone or a `git clean` does not pay for it again.
 * - Running state (data, pid files, logs) goes to `<repo>/.infra/`, which is gitignored, so
 *   each checkout has its own instances and `rm -rf .infra` resets them.
 */
import { join } from "node:path";

export interface InfraConfig {
  readonly repoRoot: string;
  /** `<repo>/.infra`: one subdirectory per component. */
  readonly stateDir: string;
  /** Loopback port of the shared FerretDB (`FERRETDB_PORT`, default 27217). */
  readonly ferretDbPort: number;
}

/** The repository root, found from this file rather than the working directory. */
export const repoRoot = join(import.meta.dirname, "..", "..");

/** Thrown for a bad environment value, with a message that names the variable. */
export class InfraConfigError extends Error {
  override readonly name = "InfraConfigError";
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
    ferretDbPort: readPort(env, "FERRETDB_PORT", 27217),
  };
}
