/**
 * The analytics schema's migrations on each store: a store that version 1 filled moves to the
 * rollups with the same figures, and running the migrations again (a second process starting at
 * the same time, or one that died half-way) changes nothing.
 */
import { expect } from "chai";
import { migrateAnalyticsStore, schemaVersion, sql } from "@commerce/runtime/analytics";
import { analyticsStoreBackends } from "@commerce/runtime/testing";
import { createAnalyticsFigures } from "./analytics-figures.js";
import { analyticsMigrations } from "./analytics-schema.js";

const at = (text: string): Date => new Date(`${text}Z`);

/** Rows as version 1 wrote them, one of each kind twice (a redelivery). */
const versionOneRows = {
  user_events: [
    { event_id: "u1", event_type: "USER_REGISTERED", user_id: 1, occurred_at: at("2026-01-10T08:00:00") },
    { event_id: "u2", event_type: "USER_REGISTERED", user_id: 2, occurred_at: at("2026-01-10T08:00:01") },
    { event_id: "u2", event_type: "USER_REGISTERED", user_id: 2, occurred_at: at("2026-01-10T08:00:01") },
    { event_id: "u3", event_type: "USER_DELETED", user_id: 1, occurred_at: at("2026-01-11T09:00:00") },
  ],
  order_events: [
    orderRow("o1", "ORDER_PLACED", "a", "CREATED", 0, "2026-01-10T10:00:00"),
    orderRow("o2", "ORDER_PLACED", "b", "CREATED", 0, "2026-01-10T11:00:00"),
    orderRow("o3", "ORDER_PLACED", "c", "CREATED", 0, "2026-01-11T12:00:00"),
    orderRow("o4", "ORDER_STATUS_UPDATED", "a", "CONFIRMED", 1, "2026-01-10T10:05:00"),
    orderRow("o4", "ORDER_STATUS_UPDATED", "a", "CONFIRMED", 1, "2026-01-10T10:05:00"),
    orderRow("o5", "ORDER_STATUS_UPDATED", "b", "CONFIRMED", 1, "2026-01-10T11:05:00"),
    orderRow("o6", "ORDER_STATUS_UPDATED", "b", "CANCELLED", 2, "2026-01-11T00:00:00"),
  ],
  payment_events: [
    paymentRow("p1", "a", 1999n, "2026-01-10T10:04:00"),
    paymentRow("p1", "a", 1999n, "2026-01-10T10:04:00"),
    paymentRow("p2", "b", 1n, "2026-01-11T00:00:00"),
  ],
};

function orderRow(
  eventId: string,
  type: string,
  orderId: string,
  status: string,
  rank: number,
  time: string,
) {
  const occurredAt = at(time);
  return {
    event_id: eventId,
    event_type: type,
    order_id: orderId,
    status,
    status_rank: rank,
    total_amount_minor: 100n,
    occurred_at: occurredAt,
    day: time.slice(0, 10),
  };
}

function paymentRow(eventId: string, orderId: string, amount: bigint, time: string) {
  return {
    event_id: eventId,
    event_type: "PAYMENT_SUCCESS",
    payment_id: `pm_${orderId}`,
    order_id: orderId,
    amount_minor: amount,
    occurred_at: at(time),
    day: time.slice(0, 10),
  };
}

describe("analytics migrations", () => {
  for (const backend of analyticsStoreBackends("services/analytics/src/analytics-schema.spec.ts")) {
    it(`moves version 1's rows to the rollups with the same figures, and is idempotent (${backend.name})`, async function () {
      this.timeout(60_000);
      const subject = await backend.open();
      const { store } = subject;
      try {
        expect(await migrateAnalyticsStore(store, analyticsMigrations.slice(0, 1))).to.equal(1);
        for (const [table, rows] of Object.entries(versionOneRows)) await store.insert(table, rows);

        const figures = createAnalyticsFigures(store);
        const expected = async (): Promise<void> => {
          expect(await figures.dashboard("2026-01-11")).to.deep.equal({
            totalUsers: 1,
            totalOrders: 3,
            ordersOnDay: 1,
            revenueMinor: 2000n,
          });
          expect(await figures.orders()).to.deep.equal({
            totalOrders: 3,
            ordersByStatus: { CREATED: 1, CONFIRMED: 1, CANCELLED: 1 },
          });
          expect(
            Object.fromEntries(await figures.revenueByDayMinor("2026-01-09", "2026-01-12")),
          ).to.deep.equal({
            "2026-01-10": 1999n,
            "2026-01-11": 1n,
          });
        };

        expect(await migrateAnalyticsStore(store, analyticsMigrations)).to.equal(analyticsMigrations.length);
        await expected();
        const left = await store.query<{ name: string }>(
          sql`SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE '%_events' ORDER BY name`,
        );
        expect(left).to.deep.equal([]);

        // Every statement again, as a second process starting at once would run them.
        for (const migration of analyticsMigrations.slice(1)) {
          for (const statement of migration.statements) await store.command(statement);
        }
        await expected();
        expect(await schemaVersion(store)).to.equal(analyticsMigrations.length);
      } finally {
        await store.close();
        await subject.cleanup();
      }
    });
  }
});
