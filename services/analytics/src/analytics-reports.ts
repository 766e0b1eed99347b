/**
 * The three reports of the Analytics service, as the contract shapes them: figures from the store
 * (analytics-figures.ts), days from the clock in UTC, amounts turned from exact minor units into
 * JSON numbers with at most two decimals only here, at the service's edge.
 */
import { fromMinorUnitsTotal } from "@commerce/runtime/money";
import { formatDate, type Clock } from "@commerce/runtime/time";
import type { AnalyticsFigures, OrderFigures } from "./analytics-figures.js";
import { revenueRange } from "./revenue-range.js";

export interface Dashboard {
  readonly totalUsers: number;
  readonly totalOrders: number;
  readonly totalRevenue: number;
  readonly ordersToday: number;
}

export interface DailyRevenue {
  readonly date: string;
  readonly amount: number;
}

export interface AnalyticsReports {
  /** In each, `signal` is the request's. */
  dashboard(signal?: AbortSignal): Promise<Dashboard>;
  /** `from` and `to` as the request gave them (empty when absent). */
  dailyRevenue(from: string, to: string, signal?: AbortSignal): Promise<DailyRevenue[]>;
  orderStats(signal?: AbortSignal): Promise<OrderFigures>;
}

export function createAnalyticsReports(figures: AnalyticsFigures, clock: Clock): AnalyticsReports {
  return {
    async dashboard(signal) {
      const figuresToday = await figures.dashboard(formatDate(clock()), signal);
      return {
        totalUsers: figuresToday.totalUsers,
        totalOrders: figuresToday.totalOrders,
        totalRevenue: fromMinorUnitsTotal(figuresToday.revenueMinor),
        ordersToday: figuresToday.ordersOnDay,
      };
    },

    async dailyRevenue(from, to, signal) {
      const range = revenueRange(from, to, formatDate(clock()));
      const byDay = await figures.revenueByDayMinor(range.from, range.to, signal);
      return range.days.map((date) => ({ date, amount: fromMinorUnitsTotal(byDay.get(date) ?? 0n) }));
    },

    orderStats: (signal) => figures.orders(signal),
  };
}
