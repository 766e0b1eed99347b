/**
 * Wiring of the Analytics service: the store in, routes out, no socket. It only reads; the
 * stream processor (processor/processor-module.ts) writes. Both migrate the schema at start
 * (idempotent), so either may start first.
 */
import { migrateAnalyticsStore, type AnalyticsStore } from "@commerce/runtime/analytics";
import { createHealthWatch, type ServiceContext, type ServiceModule } from "@commerce/runtime/server";
import { withAnalyticsSpans } from "@commerce/runtime/telemetry";
import { AnalyticsService } from "@commerce/runtime/gen/commerce/analytics/v1/analytics_pb.js";
import { createAnalyticsFigures } from "./analytics-figures.js";
import { createAnalyticsHandler } from "./analytics-handler.js";
import { createAnalyticsReports } from "./analytics-reports.js";
import { analyticsMigrations } from "./analytics-schema.js";

export interface AnalyticsOptions {
  /** The analytics store; its owner closes it after `stop`. */
  readonly store: AnalyticsStore;
  /** How often readiness pings the store (default 2 s). */
  readonly healthIntervalMs?: number;
}

export async function buildAnalyticsService(
  ctx: ServiceContext,
  options: AnalyticsOptions,
): Promise<ServiceModule> {
  // Its statements as CLIENT spans under its own tracer, in either topology.
  const store = withAnalyticsSpans(options.store, ctx.telemetry);
  await migrateAnalyticsStore(store, analyticsMigrations);
  const reports = createAnalyticsReports(createAnalyticsFigures(store), ctx.clock);
  // A failed query already answers 500; readiness tells the probes (and Envoy) before a query.
  const health = createHealthWatch({
    name: "analytics store",
    check: () => store.ping(),
    intervalMs: options.healthIntervalMs ?? 2_000,
    logger: ctx.logger,
  });
  return {
    name: "analytics",
    services: [AnalyticsService],
    register(router) {
      router.service(AnalyticsService, createAnalyticsHandler(reports));
    },
    start: () => health.start(),
    stop() {
      health.stop();
      return Promise.resolve();
    },
    isHealthy: () => health.healthy(),
  };
}
