/**
 * What a consumer takes off its partition: only a record that can never succeed. A handler that
 * throws a `PermanentEventError` (a payload that does not parse, a type the topic's consumer does
 * not know, any verdict of the handler's own that retrying cannot change) has its record parked
 * on the group's dead-letter topic, and the partition moves on. Any other failure is thrown on:
 * the bus delivers the record again, without limit, and its partition waits (blocked-partitions.ts,
 * ADR 0110). That holds for a store or peer that is down however long, and for a failure nobody
 * foresaw (a bug): its partition is blocked, visibly, until a fix lets the record through,
 * instead of the record being lost to a parking place nobody looks at.
 *
 * Batches (`withBatchDeadLetters`) follow the same rule, with one step more: a batch that fails
 * with a `PermanentEventError` is handed to the handler again one record at a time, so the
 * records that can be processed are, and only the one that cannot is parked.
 */
import type { BatchHandler, EventHandler, EventRecord } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import { PermanentEventError } from "./permanent-event-error.js";

/**
 * Takes a record its handler gave up on (see `createDeadLetterPublisher`). When it rejects, the
 * wrapper rejects too and the bus redelivers: a record is parked or retried, never lost.
 */
export type DeadLetter = (record: EventRecord, error: unknown) => Promise<void>;

/** True for a failure that retrying cannot help (see the module comment). */
export function isPermanentFailure(error: unknown): boolean {
  return error instanceof PermanentEventError;
}

/**
 * Wraps `handler`: a `PermanentEventError` sends the record to `deadLetter` and the wrapper
 * resolves, so the partition moves on; any other failure, and any failure once the signal
 * aborted (the subscription is closing), rejects, and the bus delivers the record again.
 */
export function withDeadLetters(handler: EventHandler, deadLetter: DeadLetter): EventHandler {
  return async (record, signal) => {
    try {
      await handler(record, signal);
    } catch (error) {
      await parkOrThrow(record, error, signal, deadLetter);
    }
  };
}

/** Parks `record` for a permanent failure while the subscription runs; rethrows `error` otherwise. */
async function parkOrThrow(
  record: EventRecord,
  error: unknown,
  signal: AbortSignal,
  deadLetter: DeadLetter,
): Promise<void> {
  if (signal.aborted || !isPermanentFailure(error)) throw error;
  await deadLetter(record, error);
}

/**
 * Wraps a batch handler. A batch that fails with a `PermanentEventError` is handed to `handler`
 * again one record at a time, in order, each as a batch of one under `withDeadLetters`' rule: a
 * record that fails alone with one is parked and the next one follows. A record that fails
 * otherwise rejects the wrapper, and the bus delivers the whole batch again; records handled
 * before it come again with it, which consumers absorb by event id. The wrapper resolves once
 * every record is handled or parked, so the bus commits the batch.
 */
export function withBatchDeadLetters(
  handler: BatchHandler,
  deadLetter: DeadLetter,
  logger: EventLogger,
): BatchHandler {
  return async (batch, signal) => {
    try {
      await handler(batch, signal);
    } catch (error) {
      const [only] = batch.records;
      if (batch.records.length === 1 && only !== undefined) {
        await parkOrThrow(only, error, signal, deadLetter);
        return;
      }
      if (signal.aborted || !isPermanentFailure(error)) throw error;
      logger.warn(
        { err: error, topic: batch.topic, partition: batch.partition, count: batch.records.length },
        "a batch holds a record that can never be handled: handing its records over one at a time",
      );
      for (const record of batch.records) {
        try {
          await handler({ ...batch, records: [record] }, signal);
        } catch (recordError) {
          await parkOrThrow(record, recordError, signal, deadLetter);
        }
      }
    }
  };
}
