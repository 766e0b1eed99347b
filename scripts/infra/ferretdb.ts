/**
 * FerretDB 1.24 on SQLite, the MongoDB-compatible server of our tests (ADR 0072: real
 * infrastructure on loopback, no containers). Runs through our own launcher in ./ferretdb
 * (see its main.go for why we do not build FerretDB's own command).
 *
 * Two ways in, as for Kafka, ClickHouse and Jaeger:
 *   - `createFerretDbComponent`: the shared instance of `npm run infra:up`, detached, on a fixed
 *     port (`FERRETDB_PORT`, default 27217), data under `<repo>/.infra/ferretdb/data`;
 *   - `startFerretDb`: a private instance for one test run, on a free port, tied to the
 *     caller's lifetime (private-server.ts).
 */
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { ensureArtifact, filesOf, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";
import { createInfraComponent, type InfraComponent } from "./infra-component.js";
import type { InfraConfig } from "./infra-config.js";
import type { LocalServer } from "./local-server.js";
import { startUrlServer, type ClientPortOptions, type UrlServer } from "./private-server.js";
import { acceptsConnections } from "./processes.js";

const launcherName = "ferretdb-launcher";
const launcherSource = join(import.meta.dirname, "ferretdb");

/** The launcher's binary, built from ./ferretdb into the project's cache on first use. */
export async function ensureFerretDbLauncher(options: ArtifactOptions = {}): Promise<string> {
  const launcher = await ensureArtifact(
    {
      name: launcherName,
      inputs: await filesOf(launcherSource, ["main.go", "go.mod", "go.sum"]),
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

/** FerretDB for the shared lifecycle; the installed form is the launcher's binary. */
const ferretDbServer: LocalServer<string, "port"> = {
  name: "ferretdb",
  title: "FerretDB",
  portNames: ["port"],
  startTimeoutMs: 30_000,
  stopGraceMs: 10_000,
  probeIntervalMs: 50,
  processSignature: launcherName,
  install: (log) => ensureFerretDbLauncher({ log }),
  prepare: (binary, dir, { port }, withStarter) =>
    Promise.resolve({
      command: binary,
      args: [
        "-listen-addr",
        `127.0.0.1:${port}`,
        "-sqlite-dir",
        join(dir, "data"),
        // The launcher watches its stdin itself when asked to.
        ...(withStarter ? ["-exit-on-stdin-eof"] : []),
      ],
    }),
  address: ({ port }) => mongoUrlAt(port),
  answers: ({ port }) => pingMongo(mongoUrlAt(port), 1_000),
  env: ({ port }) => ({ MONGODB_URL: mongoUrlAt(port) }),
  describe: (_binary, dir) => `data in ${join(dir, "data")}`,
};

/** The shared instance behind `npm run infra:up` / `infra:down`. */
export function createFerretDbComponent(config: InfraConfig, log: (message: string) => void): InfraComponent {
  return createInfraComponent(ferretDbServer, config.stateDir, { port: config.ferretDbPort }, log);
}

/** A private server for one test run (see `startFerretDb`). */
export type FerretDbOptions = ClientPortOptions;

/** A running private server; `url` is `mongodb://127.0.0.1:<port>/`. */
export type FerretDbInstance = UrlServer;

/** Starts a private FerretDB for one test run and resolves once it answers `ping`. */
export function startFerretDb(options: FerretDbOptions): Promise<FerretDbInstance> {
  return startUrlServer(ferretDbServer, options);
}
