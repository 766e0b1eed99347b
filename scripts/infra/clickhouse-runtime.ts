/**
 * What it takes to run our local ClickHouse: Debian's `clickhouse-server` 18.16 (ADR 0072:
 * ClickHouse from the Debian package, no containers), unpacked into the per-user cache
 * instead of installed (debian-packages.ts). apt fetches the server and only the libraries the
 * machine lacks (Poco, re2, capnp, …, about 16 MB on a plain Debian 12); the artifact is
 *   clickhouse-18.16-<hash>/root/      the unpacked packages (about 100 MB)
 *   clickhouse-18.16-<hash>/MANIFEST   the package versions
 */
import type { ArtifactOptions } from "../cache/cached-artifact.js";
import { ensureDebianPackages } from "./debian-packages.js";

/** The release line we run: Debian 12's package. Its quirks are in ADR 0055. */
export const clickHouseSeries = "18.16";

/** Everything needed to start the server. */
export interface ClickHouseRuntime {
  /** The Debian version of the package, e.g. "18.16.1+ds-7.3+b2". */
  readonly version: string;
  /** The `clickhouse-server` executable. */
  readonly binary: string;
  /** The environment the binary needs: `LD_LIBRARY_PATH` on the unpacked libraries. */
  readonly env: Readonly<Record<string, string>>;
}

/** Returns the runtime, installing it into the cache first if it is not there yet. */
export async function ensureClickHouseRuntime(options: ArtifactOptions = {}): Promise<ClickHouseRuntime> {
  const { version, binary, env } = await ensureDebianPackages(
    {
      name: `clickhouse-${clickHouseSeries}`,
      purpose: "ClickHouse",
      packages: ["clickhouse-server"],
      series: clickHouseSeries,
      binary: "usr/sbin/clickhouse-server",
    },
    options,
  );
  return { version, binary, env };
}
