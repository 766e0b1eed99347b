/**
 * The figures, read from the tables the stream processor writes (docs/decisions.md
 * "Analytics" defines each). Every table is read with FINAL, so each event id counts once
 * however often it was delivered; counts are over distinct ids on top of that. Money is summed
 * as Int64 minor units in the store and read as decimal text, so it stays exact.
 *
 * The SQL keeps to what both ClickHouse 18.16 and chDB run (docs/decisions.md "Analytics
 * store"): no WITH FILL (days without revenue are filled here), no true/false.
 */
import type { AnalyticsStore } from "@commerce/runtime/analytics/analytics-store.js";
import { sql } from "@commerce/runtime/analytics/sql.js";
import { orderStatusOfRank, orderStatuses, type OrderStatus } from "./order-status-rank.js";

export interface OrderFigures {
  /** Orders placed (ORDER_PLACED received). */
  readonly totalOrders: number;
  /** Each placed order under its latest status; sums to `totalOrders`. */
  readonly ordersByStatus: Readonly<Record<OrderStatus, number>>;
}

export interface AnalyticsFigures {
  /** Accounts registered and not deleted. */
  totalUsers(): Promise<number>;
  orders(): Promise<OrderFigures>;
  /** Orders placed on `day` (UTC, YYYY-MM-DD). */
  ordersOn(day: string): Promise<number>;
  /** The sum of successful payments, in minor units. */
  totalRevenueMinor(): Promise<bigint>;
  /** Successful payments per UTC day from `from` to `to` inclusive, only days that have some. */
  revenueByDayMinor(from: string, to: string): Promise<ReadonlyMap<string, bigint>>;
}

/**
 * Each successful payment once (by payment id, on top of FINAL's event id: the Payment service
 * publishes one PAYMENT_SUCCESS per payment, and this holds even if two ever carried one id).
 */
const successfulPayments = sql`
  SELECT payment_id, any(amount_minor) AS amount_minor, any(day) AS day
  FROM payment_events FINAL
  WHERE event_type = 'PAYMENT_SUCCESS'
  GROUP BY payment_id`;

export function createAnalyticsFigures(store: AnalyticsStore): AnalyticsFigures {
  return {
    async totalUsers() {
      const [row] = await store.query<{ n: string }>(sql`
        SELECT countIf(registered = 1 AND deleted = 0) AS n FROM (
          SELECT user_id,
                 max(event_type = 'USER_REGISTERED') AS registered,
                 max(event_type = 'USER_DELETED') AS deleted
          FROM user_events FINAL
          GROUP BY user_id
        )`);
      return count(row?.n);
    },

    async orders() {
      // An order counts once its ORDER_PLACED is in: a status update that overtook it (another
      // partition's lag cannot cause that, a replay of part of the log could) waits for it.
      const rows = await store.query<{ rank: number; n: string }>(sql`
        SELECT rank, count() AS n FROM (
          SELECT order_id, max(status_rank) AS rank, max(event_type = 'ORDER_PLACED') AS placed
          FROM order_events FINAL
          GROUP BY order_id
        )
        WHERE placed = 1
        GROUP BY rank`);
      const ordersByStatus = Object.fromEntries(orderStatuses.map((status) => [status, 0])) as Record<
        OrderStatus,
        number
      >;
      let totalOrders = 0;
      for (const row of rows) {
        const status = orderStatusOfRank(row.rank);
        if (status === undefined) throw new Error(`order_events holds an unknown status rank ${row.rank}`);
        ordersByStatus[status] = count(row.n);
        totalOrders += ordersByStatus[status];
      }
      return { totalOrders, ordersByStatus };
    },

    async ordersOn(day) {
      const [row] = await store.query<{ n: string }>(sql`
        SELECT uniqExact(order_id) AS n FROM order_events FINAL
        WHERE event_type = 'ORDER_PLACED' AND day = toDate(${day})`);
      return count(row?.n);
    },

    async totalRevenueMinor() {
      const [row] = await store.query<{ total: string }>(
        sql`SELECT sum(amount_minor) AS total FROM (${successfulPayments})`,
      );
      return BigInt(row?.total ?? "0");
    },

    async revenueByDayMinor(from, to) {
      const rows = await store.query<{ day: string; total: string }>(sql`
        SELECT day, sum(amount_minor) AS total FROM (${successfulPayments})
        WHERE day >= toDate(${from}) AND day <= toDate(${to})
        GROUP BY day`);
      return new Map(rows.map((row) => [row.day, BigInt(row.total)]));
    },
  };
}

/** A count read as UInt64 text, as a JSON number (the contract's uint32). */
function count(text: string | undefined): number {
  const value = Number(text ?? "0");
  if (!Number.isSafeInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new RangeError(`a count the contract cannot carry: ${text ?? ""}`);
  }
  return value;
}
