import type { EventRecord } from "./event-bus.js";

/**
 * Thrown by a consumer when retrying cannot help: the record's payload does not parse, or its
 * type is not the one the topic's consumer understands, or the handler judged that nothing will
 * ever make the record succeed. `withDeadLetters` sends such a record to the dead-letter topic,
 * and only such a record: any other failure holds the partition until the record goes through
 * (ADR 0110).
 */
export class PermanentEventError extends Error {
  override readonly name = "PermanentEventError";
}

/** The error of a record that cannot be read: `problem` says what is wrong ("has no orderId"). */
export function unreadableEvent(record: EventRecord, problem: string): PermanentEventError {
  return new PermanentEventError(`event ${record.id} (${record.type}) ${problem}`);
}

/** `value`, the text of the payload's `field`; an `unreadableEvent` when it is empty. */
export function requiredText(record: EventRecord, field: string, value: string): string {
  if (value === "") throw unreadableEvent(record, `has no ${field}`);
  return value;
}
