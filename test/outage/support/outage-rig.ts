/**
 * Test support: the multi-process topology (scripts/cluster: Envoy and one process per
 * service, on FerretDB, Kafka and ClickHouse) with the Order process's store behind a TCP proxy
 * on loopback (services/runtime/src/testing/tcp-proxy.ts), so that a test cuts that one
 * process's store while every other process keeps its own.
 *
 * The infrastructure is the environment's when it names all of it (MONGODB_URL, KAFKA_BROKERS,
 * CLICKHOUSE_URL: `npm test` passes the run's, whose history the acceptance suites left
 * consistent), else a private FerretDB, Kafka and ClickHouse in a scratch folder. The
 * deployment's secrets and admin likewise (JWT_SECRET, EDGE_SECRET, PEER_SECRET, ADMIN_EMAIL,
 * ADMIN_PASSWORD, PAYMENT_KEY_SECRET, PAYMENT_WEBHOOK_SECRET), else generated. The acceptance
 * suites' support modules read BASE_URL and the admin from the environment: the rig sets them.
 * Whatever started is stopped by `stop`, in reverse order, however far the start got.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostPortOf, startTcpProxy, throughAddress, type TcpProxy } from "@commerce/runtime/testing";
import { startClickHouse } from "#infra/clickhouse.js";
import { startFerretDb } from "#infra/ferretdb.js";
import { startKafka } from "#infra/kafka.js";
import { startCluster, type RunningCluster } from "../../../scripts/cluster/cluster.js";

export interface OutageRig {
  readonly cluster: RunningCluster;
  /** Between the Order process and its store. */
  readonly orderStore: TcpProxy;
  readonly kafkaBrokers: string;
  /** The Order process's own base URL (its `/readyz`). */
  readonly orderUrl: string;
  stop(): Promise<void>;
}

const secret = (bytes: number): string => randomBytes(bytes).toString("base64url");

function fromEnvironment(name: string, otherwise: () => string): string {
  const value = process.env[name];
  return value === undefined || value === "" ? otherwise() : value;
}

export async function startOutageRig(): Promise<OutageRig> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const scratch = await mkdtemp(join(tmpdir(), "order-store-outage-"));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
    const infra = await infrastructure(scratch, cleanups);
    const orderStore = await startTcpProxy(hostPortOf(infra.mongodbUrl));
    cleanups.push(() => orderStore.close());
    const deployment = {
      JWT_SECRET: fromEnvironment("JWT_SECRET", () => secret(64)),
      EDGE_SECRET: fromEnvironment("EDGE_SECRET", () => secret(32)),
      PEER_SECRET: fromEnvironment("PEER_SECRET", () => secret(32)),
      ADMIN_EMAIL: fromEnvironment("ADMIN_EMAIL", () => "admin@outage.test"),
      ADMIN_PASSWORD: fromEnvironment("ADMIN_PASSWORD", () => secret(12)),
      PAYMENT_KEY_SECRET: fromEnvironment("PAYMENT_KEY_SECRET", () => secret(32)),
      PAYMENT_WEBHOOK_SECRET: fromEnvironment("PAYMENT_WEBHOOK_SECRET", () => secret(32)),
    };
    const cluster = await startCluster({
      stateDir: join(scratch, "cluster"),
      mongodbUrl: infra.mongodbUrl,
      storeUrls: { order: throughAddress(infra.mongodbUrl, orderStore.address) },
      kafkaBrokers: infra.kafkaBrokers,
      jwtSecret: deployment.JWT_SECRET,
      edgeSecret: deployment.EDGE_SECRET,
      peerSecret: deployment.PEER_SECRET,
      settings: {
        ADMIN_EMAIL: deployment.ADMIN_EMAIL,
        ADMIN_PASSWORD: deployment.ADMIN_PASSWORD,
        PAYMENT_KEY_SECRET: deployment.PAYMENT_KEY_SECRET,
        PAYMENT_WEBHOOK_SECRET: deployment.PAYMENT_WEBHOOK_SECRET,
        // The customer pays at the sandbox gateway, which a topology runs only when asked.
        PAYMENT_SANDBOX: "true",
        CLICKHOUSE_URL: infra.clickHouseUrl,
      },
      logLevel: "warn",
      onIncident: (incident) =>
        process.stdout.write(`\n!!! ${incident.process} ${incident.exit}\n${incident.tail}\n`),
    });
    cleanups.push(() => cluster.stop());
    // What the acceptance suites' support modules read (test/acceptance/support/environment.ts).
    Object.assign(process.env, { BASE_URL: cluster.baseUrl, ...deployment });
    const orderUrl = cluster.urlsOf("order")[0];
    if (orderUrl === undefined) throw new Error("the topology has no Order process");
    return { cluster, orderStore, kafkaBrokers: infra.kafkaBrokers, orderUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Infrastructure {
  readonly mongodbUrl: string;
  readonly kafkaBrokers: string;
  readonly clickHouseUrl: string;
}

/** The environment's FerretDB, Kafka and ClickHouse, or private ones (see the module comment). */
async function infrastructure(
  scratch: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<Infrastructure> {
  const given = {
    mongodbUrl: process.env["MONGODB_URL"] ?? "",
    kafkaBrokers: process.env["KAFKA_BROKERS"] ?? "",
    clickHouseUrl: process.env["CLICKHOUSE_URL"] ?? "",
  };
  if (given.mongodbUrl !== "" && given.kafkaBrokers !== "" && given.clickHouseUrl !== "") return given;
  const started = await Promise.allSettled([
    startFerretDb({ dataDir: join(scratch, "ferretdb") }),
    startKafka({ dataDir: join(scratch, "kafka") }),
    startClickHouse({ dataDir: join(scratch, "clickhouse") }),
  ]);
  for (const result of started) if (result.status === "fulfilled") cleanups.push(() => result.value.stop());
  const [ferret, kafka, clickHouse] = started;
  if (ferret.status === "rejected") throw ferret.reason;
  if (kafka.status === "rejected") throw kafka.reason;
  if (clickHouse.status === "rejected") throw clickHouse.reason;
  return {
    mongodbUrl: ferret.value.url,
    kafkaBrokers: kafka.value.brokers,
    clickHouseUrl: `${clickHouse.value.url}/outage`,
  };
}
