/**
 * How every service consumes: a consumer group on the bus, reading its topics and its replay
 * topic (dead-letter-replay.ts), its handler under the dead-letter rule (dead-lettering-handler.ts):
 * only a record that can never succeed is parked on the group's dead-letter topic; any other
 * failure blocks the record's partition, which the bus retries without limit (ADR 0110). The
 * handler itself is idempotent by event id. A consumer that works a batch at a time (the analytics
 * stream processor: one insert per batch) starts with `startBatchConsumer`, under the same rule.
 *
 * The consumer's health is what its subscription says is blocked (`Subscription.blocked`): with
 * metrics on, each blocked partition is exported with how long it has been blocked, beside the
 * group's lag, processing time, consumed records and dead letters (messaging-metrics.ts).
 */
import { createDeadLetterPublisher } from "./dead-letter-publisher.js";
import { asFirstConsumed, batchesAsFirstConsumed, consumedTopics } from "./dead-letter-replay.js";
import { withBatchDeadLetters, withDeadLetters } from "./dead-lettering-handler.js";
import type { BatchHandler, EventBus, EventHandler, Subscription } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import {
  observeBlockedPartitions,
  observeConsumerLag,
  withBatchConsumerMetrics,
  withConsumerMetrics,
} from "../telemetry/messaging-metrics.js";
import { withBatchConsumerSpan, withConsumerSpan } from "../telemetry/messaging-spans.js";
import type { ServiceTelemetry } from "../telemetry/telemetry.js";

export interface ConsumerOptions {
  readonly group: string;
  readonly topics: readonly string[];
  readonly handler: EventHandler;
  readonly logger: EventLogger;
  /**
   * The consuming service's own (`ctx.telemetry`): with tracing on, each record (or batch) is
   * handled under a CONSUMER span in the trace of its cause (messaging-spans.ts); with metrics
   * on, the group's processing time, consumed records, lag, blocked partitions and dead letters
   * are measured (messaging-metrics.ts).
   */
  readonly telemetry: ServiceTelemetry;
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
  const topics = consumedTopics(group, options.topics);
  const deadLetter = createDeadLetterPublisher({ bus, group, logger: options.logger, telemetry });
  return withHealthObserved(
    bus,
    options,
    topics,
    bus.subscribe({
      group,
      topics,
      handler: withConsumerSpan(
        withConsumerMetrics(
          asFirstConsumed(withDeadLetters(options.handler, deadLetter), group),
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
 * Consumes a batch at a time: a batch that fails with a `PermanentEventError` is split into
 * single records, and only the record that fails alone so is parked (see `withBatchDeadLetters`).
 */
export function startBatchConsumer(bus: EventBus, options: BatchConsumerOptions): Promise<Subscription> {
  const { telemetry, group } = options;
  const system = bus.messagingSystem;
  const topics = consumedTopics(group, options.topics);
  const deadLetter = createDeadLetterPublisher({ bus, group, logger: options.logger, telemetry });
  return withHealthObserved(
    bus,
    options,
    topics,
    bus.subscribeBatch({
      group,
      topics,
      maxRecords: options.maxRecords,
      maxWaitMs: options.maxWaitMs,
      handler: withBatchConsumerSpan(
        withBatchConsumerMetrics(
          batchesAsFirstConsumed(withBatchDeadLetters(options.handler, deadLetter, options.logger), group),
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
 * The subscription, its group's lag and blocked partitions observed from when it started until
 * it closes.
 */
async function withHealthObserved(
  bus: EventBus,
  options: Omit<ConsumerOptions, "handler">,
  topics: readonly string[],
  subscribing: Promise<Subscription>,
): Promise<Subscription> {
  const subscription = await subscribing;
  const { telemetry, group } = options;
  const stopLag = observeConsumerLag(telemetry, bus, group, topics);
  const stopBlocked = observeBlockedPartitions(telemetry, bus.messagingSystem, group, () =>
    subscription.blocked(),
  );
  return {
    async close() {
      stopLag();
      stopBlocked();
      await subscription.close();
    },
    blocked: () => subscription.blocked(),
  };
}
