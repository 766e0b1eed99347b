/**
 * Bounded retries for event handlers, the same for every bus adapter. A bus redelivers a failed
 * record forever and blocks the record's partition meanwhile (that is what at-least-once with
 * per-key order means); this wrapper turns a failure that outlives a few retries into a
 * dead-letter record, so one poison event cannot stop a consumer group.
 *
 * Batches (`withBatchRetries`) follow the same policy, with one step more: a batch that still
 * fails is handed to the handler again one record at a time, each record with the policy of
 * `withRetries`, so the records that can be processed are, and only the one that cannot is
 * dead-lettered.
 */
import { retry, type RetryPolicy } from "../resilience/retry.js";
import type { BatchHandler, EventHandler, EventRecord } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import { PermanentEventError } from "./permanent-event-error.js";

export interface RetryOptions {
  /** Calls of the handler in total, including the first; at least 1. */
  readonly attempts: number;
  /** Upper bound of the pause after the first failure; doubles with every further failure. */
  readonly baseDelayMs: number;
  /** Cap of the pause. */
  readonly maxDelayMs: number;
  /**
   * Takes a record the handler gave up on (see `createDeadLetterPublisher`). When it rejects,
   * the wrapper rejects too and the bus redelivers: a record is parked or retried, never lost.
   */
  readonly deadLetter: (record: EventRecord, error: unknown) => Promise<void>;
  /** Notified of each failed attempt that will be retried. */
  readonly logger?: EventLogger;
  /** Source of jitter in [0, 1); `Math.random` unless a test pins it. */
  readonly random?: () => number;
}

/**
 * Wraps `handler`: a failure is retried after a backoff, up to `attempts` calls; then (or at
 * once for a `PermanentEventError`) the record goes to `deadLetter` and the wrapper resolves so
 * the partition moves on. An aborted signal (the subscription is closing) stops retrying and
 * rejects with the signal's reason, without dead-lettering: the bus redelivers the record later.
 */
export function withRetries(handler: EventHandler, options: RetryOptions): EventHandler {
  const policy = retryPolicy(options);
  return (record, signal) =>
    policy.run(
      () => handler(record, signal),
      (error) => options.deadLetter(record, error),
      { id: record.id, type: record.type, topic: record.topic },
      signal,
    );
}

/**
 * Wraps a batch handler. The whole batch is retried as `withRetries` retries a record; when it
 * still fails (or at once for a `PermanentEventError`), its records are handed to `handler`
 * again one at a time, in order, each as a batch of one under `withRetries`' policy: a record
 * that fails alone is dead-lettered and the next one follows, so one poison record costs the
 * partition its retries, never the rest of the batch. The wrapper resolves once every record is
 * handled or parked, so the bus commits the batch; an aborted signal rejects without
 * dead-lettering and the bus redelivers the batch later. Records handled before an interruption
 * come again with the batch, which consumers absorb by event id.
 */
export function withBatchRetries(handler: BatchHandler, options: RetryOptions): BatchHandler {
  const policy = retryPolicy(options);
  const { deadLetter, logger } = options;
  return (batch, signal) => {
    const one = (record: EventRecord): Promise<void> =>
      policy.run(
        () => handler({ ...batch, records: [record] }, signal),
        (error) => deadLetter(record, error),
        { id: record.id, type: record.type, topic: record.topic },
        signal,
      );
    const [only] = batch.records;
    if (batch.records.length === 1 && only !== undefined) return one(only);
    return policy.run(
      () => handler(batch, signal),
      async (error) => {
        logger?.warn(
          { err: error, topic: batch.topic, partition: batch.partition, count: batch.records.length },
          "event batch handler gave up on a batch, handing its records over one at a time",
        );
        for (const record of batch.records) await one(record);
      },
      {
        topic: batch.topic,
        partition: batch.partition,
        firstId: batch.records[0]?.id,
        count: batch.records.length,
      },
      signal,
    );
  };
}

interface HandlerRetryPolicy {
  /**
   * Calls `attempt` until it resolves, pausing after each failure; after `attempts` calls, or
   * at once after a `PermanentEventError`, resolves with `giveUp(lastError)` instead. Rejects
   * with the signal's reason once it aborts.
   */
  run(
    attempt: () => Promise<void>,
    giveUp: (error: unknown) => Promise<void>,
    subject: object,
    signal: AbortSignal,
  ): Promise<void>;
}

/**
 * Pauses grow exponentially (`baseDelayMs · 2^(failures-1)`, capped at `maxDelayMs`) with
 * "equal jitter", a random point in the upper half: consumers failing together do not retry in
 * lockstep, yet every pause keeps a floor.
 */
function retryPolicy(options: RetryOptions): HandlerRetryPolicy {
  const { attempts, baseDelayMs, maxDelayMs, logger } = options;
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new RangeError(`attempts must be a positive integer, got ${attempts}`);
  }
  if (!(baseDelayMs >= 0) || !(maxDelayMs >= baseDelayMs)) {
    throw new RangeError(`need 0 <= baseDelayMs <= maxDelayMs, got ${baseDelayMs} and ${maxDelayMs}`);
  }
  const policy: RetryPolicy = {
    maxAttempts: attempts,
    backoff: { initialMs: baseDelayMs, maxMs: maxDelayMs, jitter: "equal" },
  };
  const random = options.random ?? Math.random;
  return {
    async run(attempt, giveUp, subject, signal) {
      signal.throwIfAborted();
      try {
        await retry(attempt, {
          ...policy,
          signal,
          random,
          retryable: (error) => !signal.aborted && !(error instanceof PermanentEventError),
          onRetry: (error, failures, pauseMs) =>
            logger?.warn(
              { err: error, ...subject, attempt: failures, retryInMs: pauseMs },
              "event handler failed, retrying",
            ),
        });
      } catch (error) {
        // A closing subscription: the bus redelivers the record, so nothing is dead-lettered.
        signal.throwIfAborted();
        await giveUp(error);
      }
    },
  };
}
