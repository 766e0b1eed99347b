import type { ServiceImpl } from "@connectrpc/connect";
import type { AnalyticsService } from "@commerce/runtime/gen/commerce/analytics/v1/analytics_pb.js";
import type { AnalyticsReports } from "./analytics-reports.js";

/** REST: /api/analytics/dashboard, /api/analytics/revenue, /api/analytics/orders (ADMIN, by the contract). */
export function createAnalyticsHandler(reports: AnalyticsReports): ServiceImpl<typeof AnalyticsService> {
  return {
    getDashboard: (_req, ctx) => reports.dashboard(ctx.signal),
    async getRevenue(req, ctx) {
      return { dailyRevenue: await reports.dailyRevenue(req.from, req.to, ctx.signal) };
    },
    getOrderStats: (_req, ctx) => reports.orderStats(ctx.signal),
  };
}
