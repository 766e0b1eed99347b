/**
 * The PostgreSQL our FerretDB stores its data in (ADR 0121): Debian's `postgresql-15`, unpacked
 * into the per-user cache instead of installed (debian-packages.ts), as ClickHouse is. Nothing on
 * the system changes: no package, no cluster, no service, no user. apt fetches the server and
 * only the libraries the machine lacks; the artifact is
 *   postgresql-15-<hash>/root/      the unpacked packages
 *   postgresql-15-<hash>/MANIFEST   the package versions
 * PostgreSQL finds its share and lib folders relative to its binary, so it runs from there.
 */
import { dirname } from "node:path";
import type { ArtifactOptions } from "../cache/cached-artifact.js";
import { ensureDebianPackages } from "./debian-packages.js";

/** The release line we run: Debian 12's. */
export const postgreSqlSeries = "15";

/** Everything the FerretDB launcher needs to create and run a private cluster. */
export interface PostgreSqlRuntime {
  /** The Debian version of the package, e.g. "15.18-0+deb12u1". */
  readonly version: string;
  /** The folder of `initdb` and `postgres`. */
  readonly bin: string;
  /** The environment the binaries need: `LD_LIBRARY_PATH` on the unpacked libraries. */
  readonly env: Readonly<Record<string, string>>;
}

/** Returns the runtime, installing it into the cache first if it is not there yet. */
export async function ensurePostgreSqlRuntime(options: ArtifactOptions = {}): Promise<PostgreSqlRuntime> {
  const { version, binary, env } = await ensureDebianPackages(
    {
      name: `postgresql-${postgreSqlSeries}`,
      purpose: "PostgreSQL",
      packages: [`postgresql-${postgreSqlSeries}`],
      series: postgreSqlSeries,
      binary: `usr/lib/postgresql/${postgreSqlSeries}/bin/postgres`,
      libraryDirs: [`usr/lib/postgresql/${postgreSqlSeries}/lib`],
    },
    options,
  );
  return { version, bin: dirname(binary), env };
}
