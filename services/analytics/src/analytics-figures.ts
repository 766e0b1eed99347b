/**
 * The figures, read from the daily rollup the stream processor keeps (analytics-rollups.ts;
 * ADR 0056 defines each): a few hundred rows a year, read with FINAL so
 * that each day counts in its latest sum. Money is summed as Int64 minor units in the store and
 * read as decimal text, so it stays exact.
 *
 * The SQL keeps to what both ClickHouse 18.16 and chDB run (ADR 0055):
 * no WITH FILL (days without revenue are filled by the reports), no true/false.
 */
import { type AnalyticsStore, sql } from "@commerce/runtime/analytics";
import { orderStatuses, type OrderStatus } from "./order-statuses.js";

export interface OrderFigures {
  /** Orders placed (ORDER_PLACED received). */
  readonly totalOrders: number;
  /** Each placed order under its latest status; sums to `totalOrders`. */
  readonly ordersByStatus: Readonly<Record<OrderStatus, number>>;
}

export interface DashboardFigures {
  /** Accounts registered and not deleted. */
  readonly totalUsers: number;
  readonly totalOrders: number;
  /** Orders placed on the day asked for (UTC). */
  readonly ordersOnDay: number;
  /** The sum of successful payments, in minor units. */
  readonly revenueMinor: bigint;
}

export interface AnalyticsFigures {
  /** The dashboard's figures, with the orders placed on `day` (UTC, YYYY-MM-DD). */
  dashboard(day: string, signal?: AbortSignal): Promise<DashboardFigures>;
  orders(signal?: AbortSignal): Promise<OrderFigures>;
  /** Successful payments per UTC day from `from` to `to` inclusive, only days that have some. */
  revenueByDayMinor(from: string, to: string, signal?: AbortSignal): Promise<ReadonlyMap<string, bigint>>;
}

export function createAnalyticsFigures(store: AnalyticsStore): AnalyticsFigures {
  return {
    async dashboard(day, signal) {
      const [row] = await store.query<{ users: string; orders: string; onDay: string; revenue: string }>(
        sql`
        SELECT sum(users_registered) - sum(users_deleted) AS users,
               sum(orders_placed) AS orders,
               sumIf(orders_placed, day = toDate(${day})) AS onDay,
               sum(revenue_minor) AS revenue
        FROM figures_by_day FINAL`,
        signal,
      );
      return {
        totalUsers: count(row?.users),
        totalOrders: count(row?.orders),
        ordersOnDay: count(row?.onDay),
        revenueMinor: BigInt(row?.revenue ?? "0"),
      };
    },

    async orders(signal) {
      const [row] = await store.query<Record<"placed" | OrderStatus, string>>(
        sql`
        SELECT sum(orders_placed) AS placed,
               sum(orders_created) AS CREATED,
               sum(orders_confirmed) AS CONFIRMED,
               sum(orders_cancelled) AS CANCELLED
        FROM figures_by_day FINAL
        WHERE family = 'orders'`,
        signal,
      );
      const ordersByStatus = Object.fromEntries(
        orderStatuses.map((status) => [status, count(row?.[status])]),
      ) as Record<OrderStatus, number>;
      return { totalOrders: count(row?.placed), ordersByStatus };
    },

    async revenueByDayMinor(from, to, signal) {
      const rows = await store.query<{ day: string; total: string }>(
        sql`
        SELECT day, sum(revenue_minor) AS total FROM figures_by_day FINAL
        WHERE family = 'payments' AND day >= toDate(${from}) AND day <= toDate(${to})
        GROUP BY day`,
        signal,
      );
      return new Map(rows.map((row) => [row.day, BigInt(row.total)]));
    },
  };
}

/**
 * A count read as Int64 text, as a JSON number (the contract's uint32). A negative one means
 * the log lacks events the others depend on (a status update without its placement, a deletion
 * without its registration): it fails the query rather than show a wrong figure.
 */
function count(text: string | undefined): number {
  const value = Number(text ?? "0");
  if (!Number.isSafeInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new RangeError(`a count the contract cannot carry: ${text ?? ""}`);
  }
  return value;
}
