/**
 * ClickHouse 18.16 from Debian's package, the analytics store of our tests (ADR 0072:
 * real infrastructure on loopback, no containers). See clickhouse-runtime.ts for how the
 * package is fetched and cached without installing it, and clickhouse-server.ts for the
 * server's settings.
 *
 * Two ways in, as for FerretDB, Kafka and Jaeger:
 *   - `createClickHouseComponent`: the shared instance of `npm run infra:up`, detached, on a
 *     fixed port (`CLICKHOUSE_PORT`, default 18123), data under `<repo>/.infra/clickhouse/data`;
 *   - `startClickHouse`: a private instance for one test run, on a free port, tied to the
 *     caller's lifetime (private-server.ts).
 */
import { clickHouseServer } from "./clickhouse-server.js";
import { createInfraComponent, type InfraComponent } from "./infra-component.js";
import { readPort, type InfraConfig } from "./infra-config.js";
import { startUrlServer, type ClientPortOptions, type UrlServer } from "./private-server.js";

/** The ClickHouse part of the infrastructure configuration, read once from the environment. */
export interface ClickHouseInfraConfig {
  /** HTTP port of the shared server (`CLICKHOUSE_PORT`, default 18123). */
  readonly port: number;
}

/** Reads and checks the ClickHouse settings of `infra:up` once, at start. */
export function readClickHouseInfraConfig(env: NodeJS.ProcessEnv): ClickHouseInfraConfig {
  return { port: readPort(env, "CLICKHOUSE_PORT", 18123) };
}

/** The shared instance behind `npm run infra:up` / `infra:down`. */
export function createClickHouseComponent(
  config: InfraConfig,
  clickHouse: ClickHouseInfraConfig,
  log: (message: string) => void,
): InfraComponent {
  return createInfraComponent(clickHouseServer, config.stateDir, { port: clickHouse.port }, log);
}

/** A private server for one test run (see `startClickHouse`); `port` is its HTTP port. */
export type ClickHouseOptions = ClientPortOptions;

/** A running private server; `url` is `http://127.0.0.1:<port>`. */
export type ClickHouseInstance = UrlServer;

/** Starts a private ClickHouse for one test run and resolves once it answers `/ping`. */
export function startClickHouse(options: ClickHouseOptions): Promise<ClickHouseInstance> {
  return startUrlServer(clickHouseServer, options);
}
