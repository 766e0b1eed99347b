/**
 * Bounded retries for event handlers, the same for every bus adapter. A bus redelivers a failed
 * record forever and blocks the record's partition meanwhile (that is what at-least-once with
 * per-key order means); this wrapper turns a failure that outlives a few retries into a
 * dead-letter record, so one poison event cannot stop a consumer group.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { EventHandler, EventRecord } from "./event-bus.js";
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
 * The pause after the `failures`-th failed attempt: exponential (`baseDelayMs · 2^(failures-1)`,
 * capped at `maxDelayMs`) with "equal jitter" — a random point in the upper half — so that
 * consumers failing together do not retry in lockstep, yet every pause keeps a floor.
 */
export function retryDelayMs(
  failures: number,
  options: Pick<RetryOptions, "baseDelayMs" | "maxDelayMs">,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Wraps `handler`: a failure is retried after a backoff, up to `attempts` calls; then (or at
 * once for a `PermanentEventError`) the record goes to `deadLetter` and the wrapper resolves so
 * the partition moves on. An aborted signal (the subscription is closing) stops retrying and
 * rejects with the signal's reason, without dead-lettering: the bus redelivers the record later.
 */
export function withRetries(handler: EventHandler, options: RetryOptions): EventHandler {
  const { attempts, baseDelayMs, maxDelayMs, deadLetter, logger } = options;
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new RangeError(`attempts must be a positive integer, got ${attempts}`);
  }
  if (!(baseDelayMs >= 0) || !(maxDelayMs >= baseDelayMs)) {
    throw new RangeError(`need 0 <= baseDelayMs <= maxDelayMs, got ${baseDelayMs} and ${maxDelayMs}`);
  }
  const random = options.random ?? Math.random;
  return async (record, signal) => {
    for (let attempt = 1; ; attempt += 1) {
      signal.throwIfAborted();
      try {
        await handler(record, signal);
        return;
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof PermanentEventError || attempt >= attempts) {
          await deadLetter(record, error);
          return;
        }
        const pauseMs = retryDelayMs(attempt, { baseDelayMs, maxDelayMs }, random);
        logger?.warn(
          { err: error, id: record.id, type: record.type, topic: record.topic, attempt, retryInMs: pauseMs },
          "event handler failed, retrying",
        );
        // Only an abort ends the pause early; the loop's check then rejects with its reason.
        await delay(pauseMs, undefined, { signal }).catch(() => undefined);
      }
    }
  };
}
