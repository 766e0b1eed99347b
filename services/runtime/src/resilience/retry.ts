/**
 * The platform's one retry policy: call an operation again after a failure that may pass, with
 * an exponential, capped, jittered pause between calls (backoff.ts), until it succeeds, fails
 * for good, runs out of attempts or of time, or its caller gives up. Each site states its
 * numbers and which failures are worth another call; none writes the loop again (ADR 0085).
 */
import { setTimeout as delay } from "node:timers/promises";
import { backoffPauseMs, checkBackoff, type Backoff } from "./backoff.js";

export interface RetryPolicy {
  /** Calls in total, the first included: a positive integer, or `Infinity` with a deadline. */
  readonly maxAttempts: number;
  /**
   * Time budget from the first call, in milliseconds: a failure whose pause would end past it
   * is final. None: only `maxAttempts` bounds the calls.
   */
  readonly deadlineMs?: number;
  readonly backoff: Backoff;
}

export interface RetryOptions extends RetryPolicy {
  /** Whether a failure may pass on another call; every failure by default. */
  readonly retryable?: (error: unknown) => boolean;
  /**
   * The caller giving up: it cuts a pause short, and the retry then rejects with the signal's
   * reason. The operation receives it too. Not checked before the first call: an operation
   * that honours the signal answers that itself.
   */
  readonly signal?: AbortSignal;
  /** Told of each failure that will be retried, with the pause before the next call. */
  readonly onRetry?: (error: unknown, failures: number, pauseMs: number) => void;
  /** Source of jitter in [0, 1); `Math.random` unless a test pins it. */
  readonly random?: () => number;
}

/** Refuses a policy that cannot be meant; sites call it where their settings are read. */
export function checkRetryPolicy(policy: RetryPolicy): void {
  const { maxAttempts, deadlineMs } = policy;
  if (!(Number.isSafeInteger(maxAttempts) && maxAttempts >= 1) && maxAttempts !== Infinity) {
    throw new RangeError(`maxAttempts must be a positive integer or Infinity, got ${maxAttempts}`);
  }
  if (deadlineMs !== undefined && !(deadlineMs >= 0)) {
    throw new RangeError(`deadlineMs must be >= 0, got ${deadlineMs}`);
  }
  if (maxAttempts === Infinity && deadlineMs === undefined) {
    throw new RangeError("an unbounded number of attempts needs a deadline");
  }
  checkBackoff(policy.backoff);
}

/**
 * Calls `operation` (with the number of the call, 1 for the first) until it resolves, and
 * resolves with its value. Rejects with the operation's error when that error is not
 * `retryable`, when it was the last of `maxAttempts` calls, or when the pause before another
 * call would end past the deadline; rejects with the signal's reason once the signal aborts a
 * pause.
 */
export async function retry<T>(
  operation: (attempt: number, signal: AbortSignal | undefined) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  checkRetryPolicy(options);
  const { maxAttempts, deadlineMs, backoff, signal } = options;
  const random = options.random ?? Math.random;
  const started = deadlineMs === undefined ? 0 : performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt, signal);
    } catch (error) {
      if (attempt >= maxAttempts || options.retryable?.(error) === false) throw error;
      const pauseMs = backoffPauseMs(backoff, attempt, random);
      if (deadlineMs !== undefined && performance.now() - started + pauseMs > deadlineMs) throw error;
      options.onRetry?.(error, attempt, pauseMs);
      if (signal === undefined) await delay(pauseMs);
      else {
        // Only an abort ends the pause early; the check below then rejects with its reason.
        await delay(pauseMs, undefined, { signal }).catch(() => undefined);
        signal.throwIfAborted();
      }
    }
  }
}
