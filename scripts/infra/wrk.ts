/**
 * wrk, the HTTP load generator the benchmarks compare servers with (scripts/bench/wrk-load.ts):
 * Debian's package, unpacked into the per-user cache as ClickHouse and Chromium are
 * (debian-packages.ts), so a new machine measures with the same tool.
 */
import type { ArtifactOptions } from "../cache/cached-artifact.js";
import { ensureDebianPackages } from "./debian-packages.js";

export interface WrkRuntime {
  readonly executable: string;
  /** The environment the binary needs besides ours: its libraries. */
  readonly env: Readonly<Record<string, string>>;
}

/** Returns wrk, installing it into the cache first if it is not there yet. */
export async function ensureWrk(options: ArtifactOptions = {}): Promise<WrkRuntime> {
  const wrk = await ensureDebianPackages(
    { name: "wrk", purpose: "wrk", packages: ["wrk"], binary: "usr/bin/wrk" },
    options,
  );
  return { executable: wrk.binary, env: wrk.env };
}
