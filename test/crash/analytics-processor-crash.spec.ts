/**
 * The same events delivered twice leave every analytics figure unchanged, with the stream
 * processor running as its own process (`services/analytics/src/processor/main.ts`, as the
 * topology runs it) on a private Kafka and a private ClickHouse of this spec (its events never
 * reach the topics of other suites). Twice over, each placed deterministically
 * (ADR 0084):
 *
 *   - killed with SIGKILL after its insert and before its commit: a proxy between the processor
 *     and ClickHouse forwards the processor's first insert, waits for ClickHouse's complete 200
 *     (the rows are stored), kills the processor and cuts its connection unanswered. The batch's
 *     offsets were never committed, so the restarted processor writes the batch again;
 *   - replayed from the earliest offset: the processor's consumer group is deleted while it is
 *     stopped, so it reads every topic from the start again and writes every event again.
 *
 * The figures are read with the Analytics service's own queries (`createAnalyticsFigures`, what
 * the endpoints run) from the same database, and compared with what the published events give
 * by the definitions (figure-snapshot.ts). The proxy's record of inserts proves the events were
 * written again (a test that saw no second delivery could not fail); the checks wait for those
 * inserts and for the group's commits at the end of the log (a batch is committed only after
 * its rows and their rollups are written), not for the figures, and then read the figures once:
 * exact, not eventually. Merges
 * are stopped once the first stretch is in, so every copy stays in the tables: ClickHouse merges
 * duplicates away at a moment of its own choosing, after which a figure that counted raw rows
 * would pass by luck. Only the figures' own reading (FINAL, distinct ids) counts each once.
 */
import { expect } from "chai";
import { setTimeout as delay } from "node:timers/promises";
import { createAnalyticsFigures, type AnalyticsFigures, eventTables } from "@commerce/analytics";
import { processorGroup } from "@commerce/analytics/processor";
import {
  deleted,
  loggedIn,
  paid,
  paymentCreated,
  paymentFailed,
  placed,
  productCreated,
  registered,
  statusUpdated,
} from "@commerce/analytics/testing";
import {
  type AnalyticsStore,
  createClickHouseAnalyticsStore,
  identifier,
  sql,
  sqlList,
} from "@commerce/runtime/analytics";
import { type EventBus, type EventRecord, eventTopics } from "@commerce/runtime/events";
import { formatDate, formatTimestamp } from "@commerce/runtime/time";
import type { ClickHouseInstance } from "#infra/clickhouse.js";
import { startServiceProcess, type ServiceProcess } from "#testing/service-process.js";
import { pollUntil } from "../acceptance/support/polling.js";
import type { ClickHouseCrashProxy } from "./support/clickhouse-crash-proxy.js";
import { startStoreCrashRig, type StoreCrashRig } from "./support/store-crash-rig.js";
import { expectedFigures, figureEventIds, readFigures, type FigureDays } from "./support/figure-snapshot.js";

const database = "analytics_crash";
/** A restart after SIGKILL waits for the group to evict the dead member (a 10 s session). */
const redeliveryDeadlineMs = 60_000;

const dayMs = 24 * 3_600_000;
const base = Date.now();
const at = (daysAgo: number): string => formatTimestamp(new Date(base - daysAgo * dayMs));
const days: FigureDays = { today: formatDate(new Date(base)), from: formatDate(new Date(base - 9 * dayMs)) };

/**
 * One stretch of a shop's life: `count` accounts (two deleted, two logins), `count` orders
 * placed today or on earlier days, a quarter of them confirmed and paid, a quarter paid and
 * then cancelled, a quarter with a failed payment; a product. Every event type the processor
 * consumes, and each figure's cases.
 */
function shopHistory(prefix: string, firstUserId: number, count: number): EventRecord[] {
  const events: EventRecord[] = [productCreated(`${prefix}-p1`)];
  for (let i = 1; i <= count; i++) events.push(registered(firstUserId + i, at(i % 7)));
  events.push(loggedIn(firstUserId + 1), loggedIn(firstUserId + 2));
  events.push(deleted(firstUserId + 3, at(0)), deleted(firstUserId + 7, at(0)));
  for (let i = 1; i <= count; i++) {
    const order = `${prefix}-o${i}`;
    const payment = `${prefix}-pm${i}`;
    const total = 1_000n + BigInt(i) * 137n;
    events.push(placed(order, total, at(i % 3 === 0 ? 0 : (i % 5) + 1)));
    if (i % 4 === 1 || i % 4 === 2) {
      events.push(paymentCreated(payment, order, total));
      // One payment falls before the revenue's range: in the total, on no day of the range.
      events.push(paid(payment, order, total, at(i === 1 ? 40 : i % 4)));
      events.push(statusUpdated(order, "CREATED", "CONFIRMED"));
      if (i % 4 === 2) events.push(statusUpdated(order, "CONFIRMED", "CANCELLED"));
    } else if (i % 4 === 3) {
      events.push(paymentCreated(payment, order, total), paymentFailed(payment, order, total));
    }
  }
  return events;
}

/** The first stretch: accounts 1001…, orders `a-o…`. */
const firstSet = shopHistory("a", 1_000, 20);
/** The second: accounts 2001…, orders `b-o…`, and later events of the first stretch's orders. */
const secondSet = [
  ...shopHistory("b", 2_000, 20),
  deleted(1_001, at(0)),
  statusUpdated("a-o1", "CONFIRMED", "CANCELLED"),
  // a-o3's payment failed before; paid now.
  paid("a-pm3", "a-o3", 1_411n, at(0)),
  statusUpdated("a-o3", "CREATED", "CONFIRMED"),
  statusUpdated("a-o4", "CREATED", "CONFIRMED"),
];

describe("analytics stream processor redelivered (its own process, Kafka, ClickHouse)", function () {
  this.timeout(4 * 60_000);
  let clickHouse: ClickHouseInstance;
  let proxy: ClickHouseCrashProxy;
  let bus: EventBus;
  let store: AnalyticsStore;
  let figures: AnalyticsFigures;
  let processor: ServiceProcess | undefined;
  const published: EventRecord[] = [];
  let rig: StoreCrashRig | undefined;

  const startProcessor = (): Promise<ServiceProcess> =>
    startServiceProcess({
      name: "analytics-processor",
      entry: "services/analytics/src/processor/main.ts",
      env: {
        ...rig!.processEnv("processor", database, "analytics-processor"),
      },
    });

  async function publish(events: readonly EventRecord[]): Promise<void> {
    await bus.publish(events);
    published.push(...events);
  }

  /**
   * Waits until the inserts ClickHouse acknowledged from the `since`-th on carry every id of
   * `ids`, or the deadline passed, or the processor exited; answers the ids still missing.
   */
  async function notWrittenSince(
    since: number,
    ids: readonly string[],
    deadlineMs: number,
  ): Promise<string[]> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const written = new Set(proxy.inserts.slice(since).flatMap((insert) => insert.eventIds));
      const missing = ids.filter((id) => !written.has(id));
      if (missing.length === 0 || Date.now() > deadline || processor?.exit() !== undefined) return missing;
      await delay(50);
    }
  }

  /** Waits until the processor's group has committed every partition up to its end. */
  async function committedToTheEnd(): Promise<void> {
    await pollUntil("the processor's commits at the end of every partition", async () => {
      const lags = await bus.lag(processorGroup, eventTopics());
      return lags.every((lag) => (lag.committed ?? lag.start) === lag.end) ? true : undefined;
    });
  }

  /** SIGTERM: the processor finishes its batch in flight, commits, leaves its group, exits 0. */
  async function stopProcessor(): Promise<void> {
    const running = processor;
    processor = undefined;
    expect(await running?.stop(), running?.output()).to.deep.equal({ code: 0, signal: null });
  }

  const snapshot = () => readFigures(figures, days);

  /**
   * The copies `table` holds of its events, raw (no FINAL): how many events, and the fewest and
   * most rows one of them has; only the events of `ids` when given.
   */
  async function copiesIn(
    table: string,
    ids?: readonly string[],
  ): Promise<{ events: number; fewest: number; most: number }> {
    const only = ids === undefined ? sql`` : sql`WHERE event_id IN ${sqlList(ids)}`;
    const [row] = await store.query<{ events: string; fewest: string; most: string }>(sql`
      SELECT count() AS events, min(copies) AS fewest, max(copies) AS most FROM (
        SELECT event_id, count() AS copies FROM ${identifier(table)} ${only} GROUP BY event_id
      )`);
    return { events: Number(row?.events), fewest: Number(row?.fewest), most: Number(row?.most) };
  }

  before(async () => {
    rig = await startStoreCrashRig("analytics-processor-crash");
    ({ clickHouse, proxy, bus } = rig);
    // The processor creates the database at its first start; this store reads it directly.
    store = createClickHouseAnalyticsStore({ url: clickHouse.url, database });
    rig.onStop(() => store.close());
    figures = createAnalyticsFigures(store);

    // The first stretch, written and committed once, as the history the redeliveries meet.
    await publish(firstSet);
    processor = await startProcessor();
    expect(await notWrittenSince(0, figureEventIds(firstSet), redeliveryDeadlineMs)).to.deep.equal([]);
    await committedToTheEnd();
    expect(await snapshot()).to.deep.equal(expectedFigures(published, days));
    await stopProcessor();
    // From here on the tables keep every copy (see the module comment).
    await store.command(sql`SYSTEM STOP MERGES`);
  });

  afterEach(async () => {
    await processor?.kill();
    processor = undefined;
  });

  after(() => rig?.stop());

  it("killed with SIGKILL after its insert, before its commit: the batch is written again and every figure counts each event once", async () => {
    await publish(secondSet);
    // Armed before this test yields to the event loop: the proxy can see no request of the new
    // process before that.
    const victim = startProcessor();
    const cut = proxy.crashAfterNextInsert(async () => {
      await (await victim).kill();
    });
    processor = await victim;
    const deadline = delay(redeliveryDeadlineMs, undefined, { ref: false });
    const killed = await Promise.race([cut, deadline]);
    expect(killed, `no insert came:\n${processor.output()}`).to.not.equal(undefined);
    const { table, eventIds } = killed!;
    expect(processor.exit(), "the processor was killed").to.deep.equal({ code: null, signal: "SIGKILL" });
    expect(eventIds).to.not.be.empty;
    process.stdout.write(`      (killed after its insert of ${eventIds.length} rows into ${table})\n`);
    expect(figureEventIds(secondSet), "the killed insert's events").to.include.members([...eventIds]);

    // The killed insert did land: its rows are in the table, each once.
    expect(await copiesIn(table, eventIds), `the killed insert's rows in ${table}`).to.deep.equal({
      events: eventIds.length,
      fewest: 1,
      most: 1,
    });

    const restartedAt = Date.now();
    const since = proxy.inserts.length;
    processor = await startProcessor();
    const missing = await notWrittenSince(since, figureEventIds(secondSet), redeliveryDeadlineMs);
    expect(
      eventIds.filter((id) => missing.includes(id)),
      `events of the killed insert the restarted processor never wrote again:\n${processor.output()}`,
    ).to.deep.equal([]);
    expect(missing, "events of the second set never written").to.deep.equal([]);
    const copies = await copiesIn(table, eventIds);
    expect(copies.events).to.equal(eventIds.length);
    expect(copies.fewest, "copies of each killed event in the store").to.be.at.least(2);
    process.stdout.write(
      `      (written again ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after the restart)\n`,
    );
    // A batch is committed once its rows and their rollups are written: the figures are final.
    await committedToTheEnd();
    expect(await snapshot()).to.deep.equal(expectedFigures(published, days));
    await stopProcessor();
  });

  it("replayed from the earliest offset: every event is written again and every figure stays the same", async () => {
    const expected = expectedFigures(published, days);
    expect(await snapshot()).to.deep.equal(expected);
    await bus.deleteGroup(processorGroup);
    const lags = await bus.lag(processorGroup, eventTopics());
    expect(lags.map((lag) => lag.committed)).to.deep.equal(lags.map(() => undefined));

    const since = proxy.inserts.length;
    processor = await startProcessor();
    expect(
      await notWrittenSince(since, figureEventIds(published), redeliveryDeadlineMs),
      `events the replay never wrote again:\n${processor.output()}`,
    ).to.deep.equal([]);
    for (const table of Object.values(eventTables)) {
      expect((await copiesIn(table)).fewest, `copies of each event in ${table}`).to.be.at.least(2);
    }
    await committedToTheEnd();
    expect(await snapshot()).to.deep.equal(expected);
    await stopProcessor();
  });
});
