/**
 * The analytics pipeline end to end on each analytics store (chDB, and the ClickHouse server in
 * CLICKHOUSE_URL): events on the bus → the stream processor → the store → the Analytics
 * service's RPCs, hosted as the edge calls them.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { expect } from "chai";
import { type AnalyticsStore, migrateAnalyticsStore, sql } from "@commerce/runtime/analytics";
import {
  createRankingsReplica,
  createRecommendationReads,
  recommendationMigrations,
  recommendationVersionTable,
} from "@commerce/recommendation";
import { deadLetterTopic, type EventRecord } from "@commerce/runtime/events";
import type { ServiceModule } from "@commerce/runtime/server";
import {
  composeModules,
  eventually,
  codeOf,
  startServiceHarness,
  type ServiceHarness,
  analyticsStoreBackends,
  type TestAnalyticsStore,
} from "@commerce/runtime/testing";
import { formatDate, formatTimestamp } from "@commerce/runtime/time";
import { AnalyticsService } from "@commerce/runtime/gen/commerce/analytics/v1/analytics_pb.js";
import { createLogger } from "@commerce/runtime/logging";
import { processorGroup, buildAnalyticsProcessor } from "./processor/processor-module.js";
import { rebuildAnalytics, rebuildGroup } from "./rebuild/analytics-rebuild.js";
import { createStreamProcessor } from "./processor/stream-processor.js";
import { refreshRollups } from "./analytics-rollups.js";
import { buildAnalyticsService } from "./analytics-module.js";
import {
  deleted,
  loggedIn,
  now,
  paid,
  paymentCreated,
  paymentFailed,
  placed,
  productCreated,
  registered,
  statusUpdated,
} from "./testing/analytics-events.js";

const admin = { userId: 1, email: "root@x.test", role: "ADMIN" as const };
const alice = { userId: 11, email: "alice@x.test", role: "CUSTOMER" as const };

const today = (): string => formatDate(new Date());

/** Events that give known figures; `suffix` keeps ids apart between calls. */
function someEvents(suffix = ""): EventRecord[] {
  const id = (name: string): string => `${name}${suffix}`;
  return [
    registered(101),
    registered(102),
    registered(103),
    loggedIn(101),
    deleted(102),
    placed(id("ord_1"), 1999n),
    placed(id("ord_2"), 10n),
    placed(id("ord_3"), 20n, "2026-01-10T10:00:00"),
    placed(id("ord_4"), 5n),
    statusUpdated(id("ord_1"), "CREATED", "CONFIRMED"),
    statusUpdated(id("ord_2"), "CREATED", "CONFIRMED"),
    statusUpdated(id("ord_2"), "CONFIRMED", "CANCELLED"),
    paymentCreated(id("pm_1"), id("ord_1"), 1999n),
    paid(id("pm_1"), id("ord_1"), 1999n),
    // ord_2 was cancelled after it was paid: the money was taken, so it counts.
    paid(id("pm_2"), id("ord_2"), 10n, "2026-01-10T08:00:00"),
    paid(id("pm_3"), id("ord_3"), 20n, "2026-01-10T23:59:59"),
    paymentFailed(id("pm_4"), id("ord_4"), 5n),
    productCreated(id("p1")),
  ];
}

describe("Analytics pipeline", () => {
  for (const backend of analyticsStoreBackends("services/analytics/src/analytics-service.spec.ts")) {
    describe(`on ${backend.name}`, function () {
      this.timeout(60_000);
      let subject: TestAnalyticsStore;
      let store: AnalyticsStore;
      let harness: ServiceHarness;
      let service: ServiceModule;

      beforeEach(async () => {
        subject = await backend.open();
        store = subject.store;
        harness = await startServiceHarness(async (ctx) => {
          service = await buildAnalyticsService(ctx, { store, healthIntervalMs: 50 });
          return composeModules(await buildAnalyticsProcessor(ctx, { store }), service);
        });
      });

      afterEach(async () => {
        await harness.close();
        await store.close();
        await subject.cleanup();
      });

      const analytics = () => harness.client(AnalyticsService, admin);

      /** The three reports as JSON, the way the edge prints them. */
      async function reports(from = "2026-01-09", to = "2026-01-11") {
        const client = analytics();
        const [dashboard, orders, revenue] = await Promise.all([
          client.getDashboard({}),
          client.getOrderStats({}),
          client.getRevenue({ from, to }),
        ]);
        return {
          dashboard: {
            totalUsers: dashboard.totalUsers,
            totalOrders: dashboard.totalOrders,
            totalRevenue: dashboard.totalRevenue,
            ordersToday: dashboard.ordersToday,
          },
          orders: { totalOrders: orders.totalOrders, ordersByStatus: { ...orders.ordersByStatus } },
          revenue: revenue.dailyRevenue.map(({ date, amount }) => ({ date, amount })),
        };
      }

      type Reports = Awaited<ReturnType<typeof reports>>;

      /** Waits until the reports equal `expected`; fails with the last ones seen. */
      async function settlesAt(expected: Reports): Promise<void> {
        let last: Reports | undefined;
        try {
          await eventually(
            async () => {
              last = await reports();
              return JSON.stringify(last) === JSON.stringify(expected) ? true : undefined;
            },
            15_000,
            "the figures",
          );
        } catch (error) {
          expect(last).to.deep.equal(expected);
          throw error;
        }
      }

      const expectedOfSomeEvents: Reports = {
        dashboard: { totalUsers: 2, totalOrders: 4, totalRevenue: 20.29, ordersToday: 3 },
        orders: { totalOrders: 4, ordersByStatus: { CREATED: 2, CONFIRMED: 1, CANCELLED: 1 } },
        // 0.10 + 0.20 on one day is exactly 0.3: summed in paise, not in floating point.
        revenue: [
          { date: "2026-01-09", amount: 0 },
          { date: "2026-01-10", amount: 0.3 },
          { date: "2026-01-11", amount: 0 },
        ],
      };

      it("gives every figure from the events: users, orders by latest status, exact revenue, today's orders", async () => {
        await harness.bus.publish(someEvents());
        await settlesAt(expectedOfSomeEvents);
      });

      it("leaves every figure unchanged when the same events arrive again, in later batches and within one", async () => {
        const events = someEvents();
        await harness.bus.publish(events);
        await settlesAt(expectedOfSomeEvents);
        // Redelivered as a replay would (each again, and twice within one publish), then one
        // new event per topic, so the figures show when the processor has passed the copies.
        await harness.bus.publish([...events, ...events]);
        await harness.bus.publish([
          registered(104),
          placed("ord_marker", 100n, "2026-01-11T00:00:00"),
          paid("pm_marker", "ord_marker", 100n, "2026-01-11T00:00:00"),
        ]);
        await settlesAt({
          dashboard: { totalUsers: 3, totalOrders: 5, totalRevenue: 21.29, ordersToday: 3 },
          orders: { totalOrders: 5, ordersByStatus: { CREATED: 3, CONFIRMED: 1, CANCELLED: 1 } },
          revenue: [
            { date: "2026-01-09", amount: 0 },
            { date: "2026-01-10", amount: 0.3 },
            { date: "2026-01-11", amount: 1 },
          ],
        });
        // The copies did reach the store: only FINAL and distinct ids keep them out of the figures.
        const [rows] = await store.query<{ n: string }>(sql`SELECT count() AS n FROM order_event_rows`);
        expect(Number(rows?.n)).to.be.greaterThan(8);
      });

      it("gives the same figures when a batch is written again after its insert (a crash before the commit)", async () => {
        const processor = createStreamProcessor(store);
        const batch = { topic: "order-events", partition: 0, records: someEvents("-again") };
        await processor(batch, new AbortController().signal);
        await processor(batch, new AbortController().signal);
        const figures = await analytics().getOrderStats({});
        expect(figures.totalOrders).to.equal(4);
        expect({ ...figures.ordersByStatus }).to.deep.equal({ CREATED: 2, CONFIRMED: 1, CANCELLED: 1 });
        expect((await analytics().getDashboard({})).totalRevenue).to.equal(20.29);
      });

      it("counts an order's moves whatever order they arrive in; a move without its placement fails the figures, never shows them wrong", async () => {
        const processor = createStreamProcessor(store);
        const signal = new AbortController().signal;
        const batch = (records: EventRecord[]) => ({ topic: "order-events", partition: 0, records });
        await processor(
          batch([
            statusUpdated("ord_x", "CREATED", "CONFIRMED"),
            statusUpdated("ord_x", "CONFIRMED", "CANCELLED"),
          ]),
          signal,
        );
        expect(await codeOf(analytics().getOrderStats({}))).to.equal(Code.Internal);
        await processor(batch([placed("ord_x", 100n), placed("ord_y", 200n)]), signal);
        const figures = await analytics().getOrderStats({});
        expect([figures.totalOrders, { ...figures.ordersByStatus }]).to.deep.equal([
          2,
          { CREATED: 1, CONFIRMED: 0, CANCELLED: 1 },
        ]);
      });

      it("sums a second right when two batches of it are written at once", async () => {
        const processor = createStreamProcessor(store);
        const signal = new AbortController().signal;
        const at = "2026-01-10T12:00:00";
        const batches = [0, 1, 2, 3].map((partition) => ({
          topic: "order-events",
          partition,
          records: [1, 2, 3].map((n) => placed(`ord_${partition}_${n}`, 100n, at)),
        }));
        await Promise.all(batches.map((batch) => processor(batch, signal)));
        expect((await analytics().getOrderStats({})).totalOrders).to.equal(12);
      });

      it("writes a batch that touches more seconds and days than one statement can name", async () => {
        const processor = createStreamProcessor(store);
        const start = Date.UTC(2024, 0, 1);
        // 24,000 orders 3 hours apart: 24,000 seconds (about 290 KB of SQL) over 3,000 days
        // (about 390 KB): more than the 256 KiB a statement may have.
        const records = Array.from({ length: 24_000 }, (_, i) =>
          placed(`ord_spread_${i}`, 1n, formatTimestamp(new Date(start + i * 3 * 3_600_000))),
        );
        await processor({ topic: "order-events", partition: 0, records }, new AbortController().signal);
        const figures = await analytics().getOrderStats({});
        expect([figures.totalOrders, figures.ordersByStatus["CREATED"]]).to.deep.equal([24_000, 24_000]);
      });

      it("dead-letters a record it can never place, and the partition moves on", async () => {
        const parked = await harness.recordEvents(deadLetterTopic(processorGroup));
        const poison = { ...placed("ord_poison", 1n), data: "{not json" };
        const unknownStatus = statusUpdated("ord_a", "CREATED", "SHIPPED");
        await harness.bus.publish([placed("ord_a", 100n), poison, placed("ord_b", 200n), unknownStatus]);
        await harness.bus.publish([statusUpdated("ord_b", "CREATED", "CONFIRMED")]);
        await eventually(
          async () => {
            const stats = await analytics().getOrderStats({});
            return stats.totalOrders === 2 && stats.ordersByStatus["CONFIRMED"] === 1 ? true : undefined;
          },
          15_000,
          "the orders after the poison",
        );
        await eventually(() => (parked.length >= 2 ? true : undefined), 5_000, "the dead letters");
        expect(parked.map((record) => record.id).sort()).to.deep.equal([poison.id, unknownStatus.id].sort());
        expect(parked.map((record) => record.deadLetter?.group)).to.deep.equal([
          processorGroup,
          processorGroup,
        ]);
        expect(parked.find((record) => record.id === poison.id)?.data).to.equal("{not json");
      });

      it("rebuilds the tables from the event log: the same figures, complete when the rebuild returns", async () => {
        await harness.bus.publish([...someEvents(), { ...placed("ord_poison", 1n), data: "{not json" }]);
        await settlesAt(expectedOfSomeEvents);
        // Rows the log does not hold (a bug, a hand edit) are gone after a rebuild.
        const strayAt = new Date("2026-01-10T00:00:00Z");
        await store.insert("order_event_rows", [
          {
            event_id: "not-in-the-log",
            event_type: "ORDER_PLACED",
            order_id: "ord_stray",
            status: "CREATED",
            previous_status: "",
            total_amount_minor: 1n,
            occurred_at: strayAt,
          },
        ]);
        await refreshRollups(store, "orders", [strayAt]);
        expect((await analytics().getOrderStats({})).totalOrders).to.equal(5);
        // The recommendations, in the same store, are rebuilt too: p1 sold in the three orders
        // not cancelled (a stray pair row is gone), and is the one best seller.
        await migrateAnalyticsStore(store, recommendationMigrations, recommendationVersionTable);
        await store.insert("recommendation_pairs", [
          { product_id: "p1", other_id: "p1", order_id: "ord_stray", cancelled: 0, version: 0 },
        ]);
        const logger = createLogger("silent", "test");
        const first = await rebuildAnalytics({ store, bus: harness.bus, logger });
        expect(first.records).to.equal(19n);
        expect(await reports()).to.deep.equal(expectedOfSomeEvents);
        const [sold] = await store.query<{ orders: string }>(
          sql`SELECT argMax(orders, version) AS orders FROM recommendation_popularity WHERE product_id = 'p1'`,
        );
        expect(sold?.orders).to.equal("3");
        const rankings = createRankingsReplica(store, { logger });
        await rankings.refresh();
        expect(await createRecommendationReads(rankings).alsoBought("another", 4)).to.deep.equal(["p1"]);
        await rebuildAnalytics({ store, bus: harness.bus, logger });
        expect(await reports()).to.deep.equal(expectedOfSomeEvents);
        // Its consumer group is gone: the next rebuild starts at the beginning again, and it
        // holds no retention back.
        const lags = await harness.bus.lag(rebuildGroup, ["order-events"]);
        expect(lags.map((lag) => lag.committed)).to.deep.equal([undefined]);
      });

      it("answers only admins: a customer gets PERMISSION_DENIED, a caller without identity UNAUTHENTICATED", async () => {
        const customer = harness.client(AnalyticsService, alice);
        const anonymous = harness.client(AnalyticsService);
        expect(await codeOf(customer.getDashboard({}))).to.equal(Code.PermissionDenied);
        expect(await codeOf(customer.getRevenue({}))).to.equal(Code.PermissionDenied);
        expect(await codeOf(customer.getOrderStats({}))).to.equal(Code.PermissionDenied);
        expect(await codeOf(anonymous.getDashboard({}))).to.equal(Code.Unauthenticated);
        expect(await codeOf(anonymous.getRevenue({}))).to.equal(Code.Unauthenticated);
        expect(await codeOf(anonymous.getOrderStats({}))).to.equal(Code.Unauthenticated);
      });

      it("answers zeros and all three statuses on an empty store, and 30 days ending today by default", async () => {
        expect(await reports()).to.deep.equal({
          dashboard: { totalUsers: 0, totalOrders: 0, totalRevenue: 0, ordersToday: 0 },
          orders: { totalOrders: 0, ordersByStatus: { CREATED: 0, CONFIRMED: 0, CANCELLED: 0 } },
          revenue: [
            { date: "2026-01-09", amount: 0 },
            { date: "2026-01-10", amount: 0 },
            { date: "2026-01-11", amount: 0 },
          ],
        });
        await harness.bus.publish([paid("pm_today", "ord_today", 4_999n, now())]);
        const days = await eventually(async () => {
          const { dailyRevenue } = await analytics().getRevenue({});
          return dailyRevenue.at(-1)?.amount === 49.99 ? dailyRevenue : undefined;
        });
        expect(days).to.have.length(30);
        expect(days.at(-1)?.date).to.equal(today());
        expect(days.slice(0, -1).every((day) => day.amount === 0)).to.equal(true);
      });

      it("refuses malformed dates, impossible dates, from after to and more than 366 days", async () => {
        const client = analytics();
        const refused = async (from: string, to: string): Promise<string> => {
          try {
            await client.getRevenue({ from, to });
          } catch (error) {
            const connectError = ConnectError.from(error);
            expect(connectError.code, `${from}..${to}`).to.equal(Code.InvalidArgument);
            return connectError.rawMessage;
          }
          throw new Error(`${from}..${to} was answered`);
        };
        expect(await refused("2026/01/01", "")).to.match(/from/);
        expect(await refused("", "tomorrow")).to.match(/to/);
        expect(await refused("2026-02-30", "2026-03-01")).to.equal(
          '"from" must be a calendar date YYYY-MM-DD, got "2026-02-30"',
        );
        expect(await refused("2026-03-02", "2026-03-01")).to.equal(
          '"from" (2026-03-02) must not be after "to" (2026-03-01)',
        );
        expect(await refused("2024-01-01", "2025-01-01")).to.equal(
          'the range from "from" to "to" must be at most 366 days, got 367',
        );
      });

      it("answers a failed query with INTERNAL and the fixed message, and is not ready while the store is down", async () => {
        await eventually(() => (service.isHealthy?.() === true ? true : undefined), 5_000, "readiness");
        await store.close();
        const failure = ConnectError.from(
          await analytics()
            .getDashboard({})
            .catch((error: unknown) => error),
        );
        expect([failure.code, failure.rawMessage]).to.deep.equal([Code.Internal, "internal error"]);
        await eventually(() => (service.isHealthy?.() === false ? true : undefined), 5_000, "unreadiness");
      });
    });
  }
});
