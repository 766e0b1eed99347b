/**
 * Where a consumer parks a record that can never succeed (`withDeadLetters`): the topic
 * `<group>.dead-letter` on the same bus, one per group, so an operator sees whose handler refused
 * it and replays it to that group alone once fixed (dead-letter-replay.ts). The copy keeps the
 * original id, type, subject and data untouched (it still parses with the original schema, and
 * a replay stays idempotent by id); why it failed travels beside the payload in `deadLetter`.
 * Each parked record is logged as an error with its cause and counted per group
 * (`commerce.messaging.consumer.dead_letters`, messaging-metrics.ts).
 */
import { countDeadLetters } from "../telemetry/messaging-metrics.js";
import type { ServiceTelemetry } from "../telemetry/telemetry.js";
import type { DeadLetter } from "./dead-lettering-handler.js";
import type { EventBus, EventRecord } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";

/** The dead-letter topic of a consumer group. */
export function deadLetterTopic(group: string): string {
  return `${group}.dead-letter`;
}

export interface DeadLetterPublisherOptions {
  readonly bus: EventBus;
  readonly group: string;
  readonly logger: EventLogger;
  /** The consuming service's: with metrics on, each parked record is counted. */
  readonly telemetry: ServiceTelemetry;
}

/** Returns the `deadLetter` callback of `withDeadLetters` for `group`. */
export function createDeadLetterPublisher(options: DeadLetterPublisherOptions): DeadLetter {
  const { bus, group, logger } = options;
  const topic = deadLetterTopic(group);
  const counted = countDeadLetters(options.telemetry, bus.messagingSystem, group);
  return async (record, error) => {
    const message = error instanceof Error ? error.message : String(error);
    const parked: EventRecord = {
      ...record,
      topic,
      deadLetter: { group, topic: record.topic, error: message, time: new Date().toISOString() },
    };
    await bus.publish([parked]);
    counted(record.topic, error);
    logger.error(
      { err: error, id: record.id, type: record.type, topic: record.topic, group, deadLetterTopic: topic },
      "event moved to the dead-letter topic: it can never be handled as it is",
    );
  };
}
