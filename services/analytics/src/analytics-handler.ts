import type { ServiceImpl } from "@connectrpc/connect";
import type { AnalyticsService } from "@commerce/runtime/gen/commerce/analytics/v1/analytics_pb.js";
import type { AnalyticsReports } from "./analytics-reports.js";

/** REST: /api/analytics/dashboard, /api/analytics/revenue, /api/analytics/orders (ADMIN, by the contract). */
export function createAnalyticsHandler(reports: AnalyticsReports): ServiceImpl<typeof AnalyticsService> {
  return {
    getDashboard: () => reports.dashboard(),
    async getRevenue(req) {
      return { dailyRevenue: await reports.dailyRevenue(req.from, req.to) };
    },
    getOrderStats: () => reports.orderStats(),
  };
}
