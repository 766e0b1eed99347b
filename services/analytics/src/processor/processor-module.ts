/**
 * The stream processor as a module (ADR 0019): in its own process in a cluster
 * (processor/main.ts), beside the Analytics service in the embedded platform. It serves no RPC;
 * its process answers probes, and it is ready while its store answers.
 *
 * It consumes the four event topics in its own consumer group as a store consumer
 * (`createStoreConsumer`: a failing store is waited for, never dead-lettered; an unreadable
 * record goes to `analytics-processor.dead-letter`).
 */
import { type AnalyticsStore, createStoreConsumer, migrateAnalyticsStore } from "@commerce/runtime/analytics";
import { eventTopics } from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { withAnalyticsSpans } from "@commerce/runtime/telemetry";
import { analyticsMigrations } from "../analytics-schema.js";
import { createStreamProcessor } from "./stream-processor.js";

/** The processor's consumer group. */
export const processorGroup = "analytics-processor";

export interface ProcessorOptions {
  /** The analytics store; its owner closes it after `stop`. */
  readonly store: AnalyticsStore;
  /** How often readiness pings the store (default 2 s). */
  readonly healthIntervalMs?: number;
}

export async function buildAnalyticsProcessor(
  ctx: ServiceContext,
  options: ProcessorOptions,
): Promise<ServiceModule> {
  // Its statements as CLIENT spans under its own tracer, in either topology.
  const store = withAnalyticsSpans(options.store, ctx.telemetry);
  await migrateAnalyticsStore(store, analyticsMigrations);
  const consumer = createStoreConsumer(ctx, {
    store,
    group: processorGroup,
    topics: eventTopics(),
    handler: createStreamProcessor(store),
    healthIntervalMs: options.healthIntervalMs,
  });
  return {
    name: "analytics-processor",
    services: [],
    register() {
      // No RPC: the process answers probes only.
    },
    start: () => consumer.start(),
    stop: () => consumer.stop(),
    isHealthy: () => consumer.healthy(),
  };
}
