/**
 * A consumer that writes what it reads into the analytics store: the analytics stream processor
 * and the Recommendation service. It reads its topics in a consumer group of its own, a batch at
 * a time, under the runtime's dead-letter rule (ADR 0110): a failing store is waited for, never
 * dead-lettered. Only a record that can never be placed (`PermanentEventError`) goes to
 * `<group>.dead-letter`; a store that is down holds the partitions back, with a warning at every
 * retry, until it answers again (losing rows to an outage would leave every figure built on them
 * wrong until a rebuild). Its owner is ready while the store answers (`healthy`).
 */
import type { BatchHandler, Subscription } from "../events/event-bus.js";
import { startBatchConsumer } from "../events/event-consumer.js";
import { createHealthWatch } from "../server/health-watch.js";
import type { ServiceContext } from "../server/service-module.js";
import type { AnalyticsStore } from "./analytics-store.js";

/** Batches: at most this many records, waiting at most this long to fill (freshness). */
export const storeConsumerBatch = { maxRecords: 5_000, maxWaitMs: 200 } as const;

export interface StoreConsumerOptions {
  /** The store the handler writes (its statements traced by the caller). */
  readonly store: AnalyticsStore;
  readonly group: string;
  readonly topics: readonly string[];
  readonly handler: BatchHandler;
  /** How often readiness pings the store (default 2 s). */
  readonly healthIntervalMs?: number | undefined;
}

export interface StoreConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Whether the store answered when last pinged. */
  healthy(): boolean;
}

export function createStoreConsumer(ctx: ServiceContext, options: StoreConsumerOptions): StoreConsumer {
  const health = createHealthWatch({
    name: "analytics store",
    check: () => options.store.ping(),
    intervalMs: options.healthIntervalMs ?? 2_000,
    logger: ctx.logger,
  });
  let subscription: Subscription | undefined;
  return {
    async start() {
      await health.start();
      subscription = await startBatchConsumer(ctx.bus, {
        telemetry: ctx.telemetry,
        group: options.group,
        topics: options.topics,
        ...storeConsumerBatch,
        handler: options.handler,
        logger: ctx.logger,
      });
    },
    async stop() {
      await subscription?.close();
      health.stop();
    },
    healthy: () => health.healthy(),
  };
}
