/**
 * The same events delivered twice leave every recommendation the same, with the Recommendation
 * service running as its own process (`services/recommendation/src/main.ts`, as the topology
 * runs it) on a private Kafka and a private ClickHouse of this test. Twice over, each placed
 * deterministically (ADR 0084), as for the analytics stream processor:
 *
 *   - killed with SIGKILL after it stored a batch's pairs and before its commit (the ClickHouse
 *     crash proxy forwards the insert, waits for its 200, kills the process and cuts its
 *     connection). The batch was not committed, so the restarted service writes it again;
 *   - replayed from the earliest offset: its consumer group is deleted while it is stopped.
 *
 * The answers are read with the service's own reads (`createRecommendationReads`, what its
 * endpoints run) from the same database, for every product and customer of the script, with
 * every pair's count behind them, and compared with a reference: the same events handed once, in order, to the same batch handler
 * over a database of the test's own. Merges are stopped after the first stretch, so every
 * copy stays in the tables and only the reads' own counting can count each once.
 */
import { expect } from "chai";
import { setTimeout as delay } from "node:timers/promises";
import {
  createCoPurchaseProcessor,
  createRankingsReplica,
  createRecommendationReads,
  purchaseTopics,
  recommendationGroup,
  recommendationMigrations,
  recommendationVersionTable,
} from "@commerce/recommendation";
import { customerOf, delisted, listed, placed, statusUpdated } from "@commerce/recommendation/testing";
import {
  type AnalyticsStore,
  createClickHouseAnalyticsStore,
  identifier,
  migrateAnalyticsStore,
  sql,
} from "@commerce/runtime/analytics";
import type { EventBus, EventRecord } from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import type { ClickHouseInstance } from "#infra/clickhouse.js";
import { startServiceProcess, type ServiceProcess } from "#testing/service-process.js";
import { pollUntil } from "../acceptance/support/polling.js";
import type { ClickHouseCrashProxy } from "./support/clickhouse-crash-proxy.js";
import { startStoreCrashRig, type StoreCrashRig } from "./support/store-crash-rig.js";

const database = "recommendation_crash";
const referenceDatabase = "recommendation_reference";
/** A restart after SIGKILL waits for the group to evict the dead member (a 10 s session). */
const redeliveryDeadlineMs = 60_000;

const products = ["a", "b", "c", "d", "e", "f", "g", "h"];
const customers = ["ann@x.test", "ben@x.test", "cat@x.test", "dan@x.test", "eve@x.test", "fay@x.test"];

/** The first stretch: the catalog and five orders. */
const firstSet: EventRecord[] = [
  ...["a", "b", "c", "d"].map((id) => listed(id, "fashion")),
  ...["e", "f"].map((id) => listed(id, "books")),
  listed("g", "toys"),
  placed("o1", "ann@x.test", ["a", "b", "c"]),
  placed("o2", "ben@x.test", ["a", "b"]),
  placed("o3", "cat@x.test", ["a", "c", "e"]),
  placed("o4", "dan@x.test", ["b", "d"]),
  placed("o5", "eve@x.test", ["a", "g"]),
];
/** The second: more orders, a cancellation of an earlier one, a deletion and a late listing. */
const secondSet: EventRecord[] = [
  placed("o6", "fay@x.test", ["d", "e", "h"]),
  placed("o7", "ann@x.test", ["e", "f"]),
  statusUpdated("o2", "ben@x.test", "CANCELLED"),
  placed("o8", "ben@x.test", ["b", "e"]),
  delisted("g"),
  listed("h", "books"),
];

/**
 * Every answer of the script, each product's co-purchases and each customer's (the most of
 * each), and the counts behind them: every pair's orders and every product's, as the rankings
 * read them.
 */
async function answers(store: AnalyticsStore): Promise<Record<string, string[]>> {
  const rankings = createRankingsReplica(store, {
    logger: createLogger("silent", "recommendation-crash-test"),
  });
  await rankings.refresh();
  const reads = createRecommendationReads(rankings);
  const all: Record<string, string[]> = {};
  for (const product of products) all[`also ${product}`] = await reads.alsoBought(product, 20);
  for (const customer of customers)
    all[`for ${customer}`] = await reads.forCustomer(customerOf(customer), 20);
  const counts = await store.query<{ product_id: string; other_id: string; orders: string }>(
    sql`SELECT product_id, other_id, argMax(orders, version) AS orders FROM recommendation_pair_counts
      GROUP BY product_id, other_id ORDER BY product_id, other_id`,
  );
  all["pair counts"] = counts.map((row) => `${row.product_id} ${row.other_id} ${row.orders}`);
  return all;
}

describe("Recommendation service redelivered (its own process, Kafka, ClickHouse)", function () {
  this.timeout(4 * 60_000);
  let clickHouse: ClickHouseInstance;
  let proxy: ClickHouseCrashProxy;
  let bus: EventBus;
  let store: AnalyticsStore;
  let service: ServiceProcess | undefined;
  const published: EventRecord[] = [];
  let rig: StoreCrashRig | undefined;

  const startService = (): Promise<ServiceProcess> =>
    startServiceProcess({
      name: "recommendation",
      entry: "services/recommendation/src/main.ts",
      env: {
        ...rig!.processEnv("recommendation", database, "recommendation"),
        // Never called: the test reads the store, not the endpoints that fill in products, and
        // a fresh store holds no purchases recorded by email for its migration to ask Auth about.
        PRODUCT_SERVICE_URL: "http://127.0.0.1:9",
        AUTH_SERVICE_URL: "http://127.0.0.1:9",
      },
    });

  async function publish(events: readonly EventRecord[]): Promise<void> {
    await bus.publish(events);
    published.push(...events);
  }

  /**
   * What the events published so far give, handed once, in order, to the batch handler over a
   * database of its own, made afresh.
   */
  async function expected(): Promise<Record<string, string[]>> {
    const admin = createClickHouseAnalyticsStore({ url: clickHouse.url });
    await admin.command(sql`DROP DATABASE IF EXISTS ${identifier(referenceDatabase)}`);
    await admin.command(sql`CREATE DATABASE ${identifier(referenceDatabase)}`);
    await admin.close();
    const reference = createClickHouseAnalyticsStore({ url: clickHouse.url, database: referenceDatabase });
    try {
      await migrateAnalyticsStore(reference, recommendationMigrations, recommendationVersionTable);
      await createCoPurchaseProcessor(reference)(
        { topic: "all", partition: 0, records: published },
        new AbortController().signal,
      );
      return await answers(reference);
    } finally {
      await reference.close();
    }
  }

  /** Waits until the service's group has committed every partition up to its end. */
  async function committedToTheEnd(): Promise<void> {
    await pollUntil(
      "the service's commits at the end of every partition",
      async () => {
        const lags = await bus.lag(recommendationGroup, purchaseTopics);
        return lags.every((lag) => (lag.committed ?? lag.start) === lag.end) ? true : undefined;
      },
      redeliveryDeadlineMs,
    );
  }

  async function stopService(): Promise<void> {
    const running = service;
    service = undefined;
    expect(await running?.stop(), running?.output()).to.deep.equal({ code: 0, signal: null });
  }

  const actual = () => answers(store);

  before(async () => {
    rig = await startStoreCrashRig("recommendation-crash");
    ({ clickHouse, proxy, bus } = rig);
    store = createClickHouseAnalyticsStore({ url: clickHouse.url, database });
    rig.onStop(() => store.close());

    await publish(firstSet);
    service = await startService();
    await committedToTheEnd();
    const first = await expected();
    // The script is not vacuous: a's co-purchases are b and c (two orders each), then e and g.
    expect(first["also a"]?.slice(0, 4)).to.deep.equal(["b", "c", "e", "g"]);
    expect(await actual()).to.deep.equal(first);
    await stopService();
    await store.command(sql`SYSTEM STOP MERGES`);
  });

  afterEach(async () => {
    await service?.kill();
    service = undefined;
  });

  after(() => rig?.stop());

  it("killed with SIGKILL after its insert, before its commit: the batch is written again and every answer is as if delivered once", async () => {
    await publish(secondSet);
    const victim = startService();
    // After its pairs are stored: the counts of the batch's orders would come out twice.
    const cut = proxy.crashAfterNextInsert(async () => {
      await (await victim).kill();
    }, "recommendation_pairs");
    service = await victim;
    const killed = await Promise.race([cut, delay(redeliveryDeadlineMs, undefined, { ref: false })]);
    expect(killed, `no insert came:\n${service.output()}`).to.not.equal(undefined);
    const { table, rows } = killed!;
    expect(service.exit(), "the service was killed").to.deep.equal({ code: null, signal: "SIGKILL" });
    expect(rows).to.not.be.empty;
    process.stdout.write(`      (killed after its insert of ${rows.length} rows into ${table})\n`);

    const since = proxy.inserts.length;
    service = await startService();
    await committedToTheEnd();
    const again = proxy.inserts.slice(since).filter((insert) => insert.table === table);
    expect(
      again.flatMap((insert) => insert.rows),
      `the killed insert's rows written again:\n${service.output()}`,
    ).to.include.members([...rows]);
    const settled = await expected();
    // The second stretch shows: o2 no longer counts, g is gone, h (listed after its order) is named.
    expect(settled["also a"]?.slice(0, 2)).to.deep.equal(["c", "b"]);
    expect(settled["also d"]?.slice(0, 3)).to.deep.equal(["b", "e", "h"]);
    expect(Object.values(settled).flat()).to.not.include("g");
    expect(await actual()).to.deep.equal(settled);
    await stopService();
  });

  it("replayed from the earliest offset: every event is written again and every answer stays the same", async () => {
    const settled = await expected();
    expect(await actual()).to.deep.equal(settled);
    await bus.deleteGroup(recommendationGroup);
    const since = proxy.inserts.length;
    service = await startService();
    await committedToTheEnd();
    const lines = proxy.inserts
      .slice(since)
      .filter((insert) => insert.table === "recommendation_order_lines");
    const orders = lines.flatMap((insert) =>
      insert.rows.map((row) => (JSON.parse(row) as { order_id: string }).order_id),
    );
    expect(new Set(orders), "orders written again").to.deep.equal(
      new Set(["o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8"]),
    );
    expect(await actual()).to.deep.equal(settled);
    await stopService();
  });
});
