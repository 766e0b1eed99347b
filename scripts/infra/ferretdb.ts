/**
 * FerretDB 1.24 on PostgreSQL, the MongoDB-compatible server of our tests (ADR 0072: real
 * infrastructure on loopback, no containers; ADR 0121: PostgreSQL). Runs through our own
 * launcher in ./ferretdb (see its main.go for why we do not build FerretDB's own command),
 * which owns a private PostgreSQL cluster in the instance's data folder: initdb on the first
 * start, its postmaster a child of the launcher, reached on a Unix socket only.
 *
 * SQLite, FerretDB's embedded backend and the test server before ADR 0121, stays selectable
 * (`backend: "sqlite"`) for one use only: the order-cost bench measures the platform on it as
 * "before" beside PostgreSQL.
 *
 * Two ways in, as for Kafka, ClickHouse and Jaeger:
 *   - `createFerretDbComponent`: the shared instance of `npm run infra:up`, detached, on a fixed
 *     port (`FERRETDB_PORT`, default 27217), data under `<repo>/.infra/ferretdb/data`;
 *   - `startFerretDb`: a private instance for one test run, on a free port, tied to the
 *     caller's lifetime (private-server.ts).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { ensureArtifact, filesOf, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";
import { ensurePostgreSqlRuntime, type PostgreSqlRuntime } from "./postgresql-runtime.js";
import { createInfraComponent, type InfraComponent } from "./infra-component.js";
import type { InfraConfig } from "./infra-config.js";
import type { LocalServer } from "./local-server.js";
import { startUrlServer, type ClientPortOptions, type UrlServer } from "./private-server.js";
import { acceptsConnections } from "./processes.js";

const launcherName = "ferretdb-launcher";
const launcherSource = join(import.meta.dirname, "ferretdb");

/** The launcher's Go files, in a stable order. */
async function launcherGoFiles(): Promise<string[]> {
  return (await readdir(launcherSource)).filter((name) => name.endsWith(".go")).sort();
}

/** The launcher's binary, built from ./ferretdb into the project's cache on first use. */
export async function ensureFerretDbLauncher(options: ArtifactOptions = {}): Promise<string> {
  const launcher = await ensureArtifact(
    {
      name: launcherName,
      // Every source file of the launcher, and its module's requirements.
      inputs: await filesOf(launcherSource, [...(await launcherGoFiles()), "go.mod", "go.sum"]),
      build: async (dir) => {
        await runGo(["build", "-o", join(dir, launcherName), "."], { cwd: launcherSource });
      },
    },
    options,
  );
  return join(launcher.dir, launcherName);
}

/**
 * True when a MongoDB-compatible server at `url` answers `ping`. A plain TCP probe comes first:
 * while nothing listens yet it fails at once, where the driver would wait for its server
 * selection timeout, so readiness polling stays fast.
 */
export async function pingMongo(url: string, timeoutMs = 2_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  if (!(await acceptsConnections(hostname, Number(port || 27017)))) return false;
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    const reply = await client.db("admin").command({ ping: 1 });
    return reply["ok"] === 1;
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

/** `mongodb://127.0.0.1:<port>/`: what `MONGODB_URL` holds. */
const mongoUrlAt = (port: number): string => `mongodb://127.0.0.1:${port}/`;

/** What FerretDB keeps its data in. */
export type FerretDbBackend = "postgresql" | "sqlite";

/** The launcher, and PostgreSQL when it stores there. */
interface FerretDbInstalled {
  readonly launcher: string;
  readonly postgreSql: PostgreSqlRuntime | undefined;
}

/** FerretDB for the shared lifecycle, on either backend. */
function ferretDbServer(backend: FerretDbBackend): LocalServer<FerretDbInstalled, "port"> {
  return {
    name: "ferretdb",
    title: "FerretDB",
    portNames: ["port"],
    // A first start runs initdb (a second or two) before FerretDB listens.
    startTimeoutMs: 60_000,
    // FerretDB drains its connections, then PostgreSQL shuts down fast (a checkpoint).
    stopGraceMs: 30_000,
    probeIntervalMs: 50,
    processSignature: launcherName,
    install: async (log) => {
      const [launcher, postgreSql] = await Promise.all([
        ensureFerretDbLauncher({ log }),
        backend === "postgresql" ? ensurePostgreSqlRuntime({ log }) : undefined,
      ]);
      return { launcher, postgreSql };
    },
    prepare: ({ launcher, postgreSql }, dir, { port }, withStarter) =>
      Promise.resolve({
        command: launcher,
        args: [
          "-listen-addr",
          `127.0.0.1:${port}`,
          "-backend",
          backend,
          "-data-dir",
          join(dir, "data"),
          ...(postgreSql === undefined ? [] : ["-postgresql-bin", postgreSql.bin]),
          // The launcher watches its stdin itself when asked to.
          ...(withStarter ? ["-exit-on-stdin-eof"] : []),
        ],
        env: postgreSql?.env ?? {},
      }),
    address: ({ port }) => mongoUrlAt(port),
    answers: ({ port }) => pingMongo(mongoUrlAt(port), 1_000),
    env: ({ port }) => ({ MONGODB_URL: mongoUrlAt(port) }),
    describe: ({ postgreSql }, dir) =>
      postgreSql === undefined
        ? `on SQLite, data in ${join(dir, "data")}`
        : `on PostgreSQL ${postgreSql.version}, data in ${join(dir, "data")}`,
  };
}

/** The shared instance behind `npm run infra:up` / `infra:down`. */
export function createFerretDbComponent(config: InfraConfig, log: (message: string) => void): InfraComponent {
  return createInfraComponent(
    ferretDbServer("postgresql"),
    config.stateDir,
    { port: config.ferretDbPort },
    log,
  );
}

/** A private server for one test run (see `startFerretDb`). */
export interface FerretDbOptions extends ClientPortOptions {
  /** PostgreSQL unless said otherwise; SQLite only for the bench's "before" (see above). */
  readonly backend?: FerretDbBackend;
}

/** A running private server; `url` is `mongodb://127.0.0.1:<port>/`. */
export type FerretDbInstance = UrlServer;

/** Starts a private FerretDB for one test run and resolves once it answers `ping`. */
export function startFerretDb(options: FerretDbOptions): Promise<FerretDbInstance> {
  return startUrlServer(ferretDbServer(options.backend ?? "postgresql"), options);
}
