/**
 * Part 8 of `npm run bench`, the analytics figures of issue 10, in one private ClickHouse
 * (scratch folder, free port) that every step uses a database of:
 *   1. processor throughput into ClickHouse: a backlog on a private Kafka, the processor in its
 *      own process (analytics-throughput.ts);
 *   2. processor throughput into chDB: the same backlog on the embedded bus, the processor
 *      module in this process;
 *   3. event-to-dashboard freshness at idle, embedded (chDB) and on FerretDB + Kafka +
 *      ClickHouse (analytics-freshness.ts);
 *   4. endpoint latency over a store seeded with a year of orders through the processor's
 *      batch handler, on ClickHouse and on chDB, each read by an embedded platform started on
 *      it (analytics-endpoints.ts).
 * Steps 1 and 3 each get a fresh Kafka, so the platform of step 3 never consumes step 1's
 * backlog. The platforms use the edge and the store, never SQL of ours: the bench touches the
 * analytics tables only through the processor's code and the HTTP endpoints.
 */
import { join } from "node:path";
import { startClickHouse } from "../infra/clickhouse.js";
import { startFerretDb } from "../infra/ferretdb.js";
import { startKafka } from "../infra/kafka.js";
import { jsonOk } from "../testing/loopback-json.js";
import { startPlatformProcess, type PlatformProcess } from "../testing/platform-process.js";
import { benchAnalyticsEndpoints, seedOrderHistory, type StoreProcess } from "./analytics-endpoints.js";
import { benchFreshness } from "./analytics-freshness.js";
import { benchChdbThroughput, benchKafkaThroughput } from "./analytics-throughput.js";
import { describeMix, eventBacklog } from "./event-backlog.js";
import { childPidOf } from "./idle-process.js";

export interface AnalyticsBenchOptions {
  readonly scratch: string;
  /** Events in the throughput backlog (BENCH_ANALYTICS_BACKLOG). */
  readonly backlog: number;
  /** Orders in the store the endpoints are loaded over (BENCH_ANALYTICS_ORDERS). */
  readonly orders: number;
  /** Freshness samples per mode (BENCH_ANALYTICS_SAMPLES). */
  readonly samples: number;
  /** Length of each endpoint's measured load. */
  readonly seconds: number;
  /**
   * Connections loading each endpoint (BENCH_ANALYTICS_CONNECTIONS): a few, since a report
   * is a query over the whole store, and two cores run it and the platform.
   */
  readonly connections: number;
  readonly admin: { readonly email: string; readonly password: string };
  /** A platform's environment, its data in a scratch folder named after `name` (DATA_DIR). */
  readonly platformEnv: (name: string) => NodeJS.ProcessEnv;
}

const quiet = { log: () => undefined };
const weekMs = 7 * 24 * 60 * 60 * 1000;

/** The private ClickHouse: its URL, and the server's own process (under its launcher). */
interface ClickHouseServer {
  readonly url: string;
  readonly pid: number;
}

export async function benchAnalytics(options: AnalyticsBenchOptions): Promise<string[]> {
  const instance = await startClickHouse({ dataDir: join(options.scratch, "clickhouse"), ...quiet });
  try {
    const pid = childPidOf(instance.pid, "clickhouse");
    if (pid === undefined) throw new Error("the ClickHouse server's process is not under its launcher");
    const clickHouse: ClickHouseServer = { url: instance.url, pid };
    return [
      ...(await throughput(options, clickHouse)),
      "",
      ...(await freshness(options, clickHouse)),
      "",
      ...(await endpoints(options, clickHouse)),
    ];
  } finally {
    await instance.stop();
  }
}

async function throughput(options: AnalyticsBenchOptions, clickHouse: ClickHouseServer): Promise<string[]> {
  const backlog = eventBacklog({ count: options.backlog, end: new Date(), spanMs: weekMs });
  const lines = [
    `analytics backlog: ${backlog.length.toLocaleString("en-US")} events over the last 7 days (${describeMix(backlog)})`,
  ];
  const kafka = await startKafka({ dataDir: join(options.scratch, "kafka-analytics-throughput"), ...quiet });
  try {
    lines.push(
      ...(await benchKafkaThroughput({
        backlog,
        kafkaBrokers: kafka.brokers,
        clickHouseUrl: clickHouse.url,
        clickHousePid: clickHouse.pid,
        scratch: options.scratch,
      })),
    );
  } finally {
    await kafka.stop();
  }
  lines.push(...(await benchChdbThroughput({ backlog, scratch: options.scratch })));
  return lines;
}

async function adminToken(platform: PlatformProcess, options: AnalyticsBenchOptions): Promise<string> {
  const answer = (await jsonOk(platform.baseUrl, "POST", "/api/auth/login", undefined, options.admin)) as {
    token: string;
  };
  return answer.token;
}

/** Runs `work` on a platform started with `env`, and stops it. */
async function onPlatform<T>(
  env: NodeJS.ProcessEnv,
  work: (platform: PlatformProcess) => Promise<T>,
): Promise<T> {
  const platform = await startPlatformProcess(env);
  try {
    return await work(platform);
  } finally {
    await platform.stop();
  }
}

async function freshness(options: AnalyticsBenchOptions, clickHouse: ClickHouseServer): Promise<string[]> {
  const measureOn = (mode: string) => async (platform: PlatformProcess) =>
    benchFreshness({
      baseUrl: platform.baseUrl,
      adminToken: await adminToken(platform, options),
      mode,
      samples: options.samples,
    });
  const lines = [
    await onPlatform(options.platformEnv("analytics-fresh-embedded"), measureOn("embedded, chDB")),
  ];
  const ferret = await startFerretDb({ dataDir: join(options.scratch, "ferretdb-analytics"), ...quiet });
  const kafka = await startKafka({
    dataDir: join(options.scratch, "kafka-analytics-freshness"),
    ...quiet,
  }).catch(async (error: unknown) => {
    await ferret.stop();
    throw error;
  });
  try {
    const env = {
      ...options.platformEnv("analytics-fresh-kafka"),
      MONGODB_URL: ferret.url,
      KAFKA_BROKERS: kafka.brokers,
      CLICKHOUSE_URL: `${clickHouse.url}/bench_freshness`,
    };
    lines.push(await onPlatform(env, measureOn("FerretDB + Kafka + ClickHouse")));
  } finally {
    await Promise.all([kafka.stop(), ferret.stop()]);
  }
  return lines;
}

async function endpoints(options: AnalyticsBenchOptions, clickHouse: ClickHouseServer): Promise<string[]> {
  const history = {
    orders: options.orders,
    users: Math.max(1, Math.round(options.orders / 5)),
    days: 365,
    now: new Date(),
  };
  const load = (mode: string, store?: StoreProcess) => async (platform: PlatformProcess) =>
    benchAnalyticsEndpoints({
      baseUrl: platform.baseUrl,
      adminToken: await adminToken(platform, options),
      pid: platform.pid,
      store: store ?? { pid: platform.pid, name: "platform (chDB)" },
      mode,
      connections: options.connections,
      seconds: options.seconds,
    });
  const lines: string[] = [];

  const database = "bench_orders";
  lines.push(
    await seedOrderHistory(
      { clickHouse: { url: clickHouse.url, database }, chdbDir: "" },
      history,
      "ClickHouse",
    ),
  );
  const onClickHouse = {
    ...options.platformEnv("analytics-orders-clickhouse"),
    CLICKHOUSE_URL: `${clickHouse.url}/${database}`,
  };
  lines.push(
    ...(await onPlatform(
      onClickHouse,
      load("ClickHouse", { pid: clickHouse.pid, name: "ClickHouse server" }),
    )),
  );

  // chDB: seeded in this process, then closed, so that the platform can open the folder.
  const onChdb = options.platformEnv("analytics-orders-chdb");
  const dataDir = onChdb["DATA_DIR"];
  if (dataDir === undefined) throw new Error("platformEnv must set DATA_DIR");
  lines.push(
    "",
    await seedOrderHistory({ clickHouse: undefined, chdbDir: join(dataDir, "analytics") }, history, "chDB"),
  );
  lines.push(...(await onPlatform(onChdb, load("chDB"))));
  return lines;
}
