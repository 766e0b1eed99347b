/**
 * How every service consumes: a consumer group on the bus, each handler wrapped in the shared
 * retry policy, and records that still fail parked on the group's dead-letter topic so one bad
 * record never stops a partition. The handler itself is idempotent by event id. A consumer that
 * works a batch at a time (the analytics stream processor: one insert per batch) starts with
 * `startBatchConsumer`, under the same policy.
 */
import { createDeadLetterPublisher } from "./dead-letter-publisher.js";
import type { BatchHandler, EventBus, EventHandler, Subscription } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import {
  observeConsumerLag,
  withBatchConsumerMetrics,
  withConsumerMetrics,
} from "../telemetry/messaging-metrics.js";
import { withBatchConsumerSpan, withConsumerSpan } from "../telemetry/messaging-spans.js";
import type { ServiceTelemetry } from "../telemetry/telemetry.js";
import { withBatchRetries, withRetries, type RetryOptions } from "./retrying-handler.js";

export interface ConsumerOptions {
  readonly group: string;
  readonly topics: readonly string[];
  readonly handler: EventHandler;
  readonly logger: EventLogger;
  /**
   * The consuming service's own (`ctx.telemetry`): with tracing on, each record (or batch) is
   * handled under a CONSUMER span in the trace of its cause (messaging-spans.ts); with metrics
   * on, the group's processing time, consumed records and lag are measured
   * (messaging-metrics.ts).
   */
  readonly telemetry: ServiceTelemetry;
  /** Attempts before dead-lettering; 8 by default (about 25 s of backoff in total). */
  readonly attempts?: number;
}

export interface BatchConsumerOptions extends Omit<ConsumerOptions, "handler"> {
  /** Most records per batch. */
  readonly maxRecords: number;
  /** Longest wait for a batch to fill (see `BatchSubscriptionOptions.maxWaitMs`). */
  readonly maxWaitMs: number;
  readonly handler: BatchHandler;
}

export function startConsumer(bus: EventBus, options: ConsumerOptions): Promise<Subscription> {
  const { telemetry, group } = options;
  const system = bus.messagingSystem;
  return withLagObserved(
    bus,
    options,
    bus.subscribe({
      group,
      topics: options.topics,
      handler: withConsumerSpan(
        withConsumerMetrics(
          withRetries(options.handler, retryOptions(bus, options)),
          telemetry,
          system,
          group,
        ),
        telemetry,
        system,
        group,
      ),
    }),
  );
}

/**
 * Consumes a batch at a time: a batch that keeps failing is split into single records, and only
 * the record that fails alone goes to the dead-letter topic (see `withBatchRetries`).
 */
export function startBatchConsumer(bus: EventBus, options: BatchConsumerOptions): Promise<Subscription> {
  const { telemetry, group } = options;
  const system = bus.messagingSystem;
  return withLagObserved(
    bus,
    options,
    bus.subscribeBatch({
      group,
      topics: options.topics,
      maxRecords: options.maxRecords,
      maxWaitMs: options.maxWaitMs,
      handler: withBatchConsumerSpan(
        withBatchConsumerMetrics(
          withBatchRetries(options.handler, retryOptions(bus, options)),
          telemetry,
          system,
          group,
        ),
        telemetry,
        system,
        group,
      ),
    }),
  );
}

/** The subscription, its group's lag observed from when it started until it closes. */
async function withLagObserved(
  bus: EventBus,
  options: Omit<ConsumerOptions, "handler">,
  subscribing: Promise<Subscription>,
): Promise<Subscription> {
  const subscription = await subscribing;
  const stopObserving = observeConsumerLag(options.telemetry, bus, options.group, options.topics);
  return {
    async close() {
      stopObserving();
      await subscription.close();
    },
  };
}

function retryOptions(bus: EventBus, options: Omit<ConsumerOptions, "handler">): RetryOptions {
  return {
    attempts: options.attempts ?? 8,
    baseDelayMs: 200,
    maxDelayMs: 10_000,
    deadLetter: createDeadLetterPublisher(bus, options.group, options.logger),
    logger: options.logger,
  };
}
