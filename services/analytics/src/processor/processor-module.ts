/**
 * The stream processor as a module (ADR 0019): in its own process in a cluster
 * (processor/main.ts), beside the Analytics service in the embedded platform. It serves no RPC;
 * its process answers probes, and it is ready while its store answers.
 *
 * It consumes the four event topics in its own consumer group, a batch at a time, under the
 * runtime's retry and dead-letter policy, with one difference: a failing store is waited for,
 * never dead-lettered. Only a record that can never be placed (`PermanentEventError`) goes to
 * `analytics-processor.dead-letter`; a store that is down holds the partitions back, with a
 * warning at every retry, until it answers again (losing rows to an outage would make every
 * figure wrong until a rebuild).
 */
import { type AnalyticsStore, migrateAnalyticsStore } from "@commerce/runtime/analytics";
import { type Subscription, startBatchConsumer, eventTopics } from "@commerce/runtime/events";
import { createHealthWatch, type ServiceContext, type ServiceModule } from "@commerce/runtime/server";
import { withAnalyticsSpans } from "@commerce/runtime/telemetry";
import { analyticsMigrations } from "../analytics-schema.js";
import { createStreamProcessor } from "./stream-processor.js";

/** The processor's consumer group. */
export const processorGroup = "analytics-processor";

/** Batches: at most this many records, waiting at most this long to fill (freshness). */
export const processorBatch = { maxRecords: 5_000, maxWaitMs: 200 } as const;

/** Retries of a failing batch: as many as it takes (see the module comment). */
const untilTheStoreAnswers = Number.MAX_SAFE_INTEGER;

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
  const health = createHealthWatch({
    name: "analytics store",
    check: () => store.ping(),
    intervalMs: options.healthIntervalMs ?? 2_000,
    logger: ctx.logger,
  });
  let subscription: Subscription | undefined;
  return {
    name: "analytics-processor",
    services: [],
    register() {
      // No RPC: the process answers probes only.
    },
    async start() {
      await health.start();
      subscription = await startBatchConsumer(ctx.bus, {
        telemetry: ctx.telemetry,
        group: processorGroup,
        topics: eventTopics(),
        ...processorBatch,
        handler: createStreamProcessor(store),
        logger: ctx.logger,
        attempts: untilTheStoreAnswers,
      });
    },
    async stop() {
      await subscription?.close();
      health.stop();
    },
    isHealthy: () => health.healthy(),
  };
}
