/**
 * Where `withRetries` parks records a consumer group gave up on: the topic `<group>.dead-letter`
 * on the same bus, one per group, so an operator sees whose handler failed and can replay the
 * record to that group alone. The copy keeps the original id, type, subject and data untouched
 * (it still parses with the original schema, and a replay stays idempotent by id); why it
 * failed travels beside the payload in `deadLetter`.
 */
import type { EventBus, EventRecord } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";

/** The dead-letter topic of a consumer group. */
export function deadLetterTopic(group: string): string {
  return `${group}.dead-letter`;
}

/** Returns the `deadLetter` callback of `withRetries` for `group`. */
export function createDeadLetterPublisher(
  bus: EventBus,
  group: string,
  logger?: EventLogger,
): (record: EventRecord, error: unknown) => Promise<void> {
  const topic = deadLetterTopic(group);
  return async (record, error) => {
    const message = error instanceof Error ? error.message : String(error);
    const parked: EventRecord = {
      ...record,
      topic,
      deadLetter: { group, topic: record.topic, error: message, time: new Date().toISOString() },
    };
    await bus.publish([parked]);
    logger?.error(
      { err: error, id: record.id, type: record.type, topic: record.topic, group, deadLetterTopic: topic },
      "event moved to the dead-letter topic",
    );
  };
}
