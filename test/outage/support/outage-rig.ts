/**
 * Test support: the multi-process topology (scripts/cluster: Envoy and one process per
 * service, on FerretDB, Kafka and ClickHouse) with the Order process's store behind a TCP proxy
 * on loopback (services/runtime/src/testing/tcp-proxy.ts), so that a test cuts that one
 * process's store while every other process keeps its own.
 *
 * The infrastructure is the environment's when it names all of it (MONGODB_URL, KAFKA_BROKERS,
 * CLICKHOUSE_URL: `npm test` passes the run's, whose history the acceptance suites left
 * consistent), else a private FerretDB, Kafka and ClickHouse in a scratch folder. A test that
 * stops the store itself (`ownStore`) always gets a private FerretDB, which it may pause,
 * resume and restart on the same port and data. The
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
import { startFerretDb, type FerretDbInstance } from "#infra/ferretdb.js";
import { startKafka } from "#infra/kafka.js";
import { startCluster, type RunningCluster } from "../../../scripts/cluster/cluster.js";

export interface OutageRig {
  readonly cluster: RunningCluster;
  /** Between the Order process and its store. */
  readonly orderStore: TcpProxy;
  readonly kafkaBrokers: string;
  /** The Order process's own base URL (its `/readyz`). */
  readonly orderUrl: string;
  /** The private FerretDB, when the rig was asked for one (`ownStore`). */
  readonly store: PrivateStore | undefined;
  stop(): Promise<void>;
}

/** A FerretDB of the rig's own: its launcher's pid (to pause), and a restart in place. */
export interface PrivateStore {
  readonly pid: number;
  /** Stops it and starts it again on the same port and data; resolves once it answers. */
  restart(): Promise<void>;
}

export interface OutageRigOptions {
  /** A private FerretDB even when the environment names one. */
  readonly ownStore?: boolean;
}

const secret = (bytes: number): string => randomBytes(bytes).toString("base64url");

function fromEnvironment(name: string, otherwise: () => string): string {
  const value = process.env[name];
  return value === undefined || value === "" ? otherwise() : value;
}

export async function startOutageRig(options: OutageRigOptions = {}): Promise<OutageRig> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const scratch = await mkdtemp(join(tmpdir(), "order-store-outage-"));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
    const infra = await infrastructure(scratch, cleanups, options.ownStore === true);
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
    return { cluster, orderStore, kafkaBrokers: infra.kafkaBrokers, orderUrl, store: infra.store, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Infrastructure {
  readonly mongodbUrl: string;
  readonly kafkaBrokers: string;
  readonly clickHouseUrl: string;
  readonly store: PrivateStore | undefined;
}

const given = (name: string): string => process.env[name] ?? "";

/** The environment's FerretDB, Kafka and ClickHouse, or private ones (see the module comment). */
async function infrastructure(
  scratch: string,
  cleanups: (() => Promise<unknown>)[],
  ownStore: boolean,
): Promise<Infrastructure> {
  const mongodbUrl = ownStore ? "" : given("MONGODB_URL");
  const kafkaBrokers = given("KAFKA_BROKERS");
  const clickHouseUrl = given("CLICKHOUSE_URL");
  const started = await Promise.allSettled([
    mongodbUrl === "" ? startFerretDb({ dataDir: join(scratch, "ferretdb") }) : undefined,
    kafkaBrokers === "" ? startKafka({ dataDir: join(scratch, "kafka") }) : undefined,
    clickHouseUrl === "" ? startClickHouse({ dataDir: join(scratch, "clickhouse") }) : undefined,
  ]);
  const [ferret, kafka, clickHouse] = started;
  let store: FerretDbInstance | undefined = ferret.status === "fulfilled" ? ferret.value : undefined;
  cleanups.push(() => Promise.all([store?.stop()]));
  for (const result of [kafka, clickHouse]) {
    if (result.status === "fulfilled" && result.value !== undefined)
      cleanups.push(() => result.value!.stop());
  }
  for (const result of started) if (result.status === "rejected") throw result.reason;
  const privateStore: PrivateStore | undefined =
    store === undefined
      ? undefined
      : {
          get pid() {
            return store?.pid ?? 0;
          },
          async restart() {
            const port = Number(new URL(store?.url ?? "").port);
            await store?.stop();
            store = await startFerretDb({ dataDir: join(scratch, "ferretdb"), port });
          },
        };
  return {
    mongodbUrl: mongodbUrl === "" ? (store?.url ?? "") : mongodbUrl,
    kafkaBrokers:
      kafka.status === "fulfilled" && kafka.value !== undefined ? kafka.value.brokers : kafkaBrokers,
    clickHouseUrl:
      clickHouse.status === "fulfilled" && clickHouse.value !== undefined
        ? `${clickHouse.value.url}/outage`
        : clickHouseUrl,
    store: privateStore,
  };
}
