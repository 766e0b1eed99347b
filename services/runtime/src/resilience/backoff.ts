/**
 * The pause before a retry: exponential, capped, jittered. Every retry loop of the platform
 * computes its pauses here (through `retry`, or a periodic task's failure backoff), so a reader
 * finds one formula and each site states only its numbers.
 */

/**
 * How a pause is drawn from its ceiling:
 * - `full`: anywhere in [0, ceiling]. Writers that lost a race to one winner spread out most;
 *   the store's compare-and-set and the stock ledger use it.
 * - `equal`: in the upper half, [ceiling / 2, ceiling]: spread, yet never shorter than half,
 *   so a consumer failing against a dependency that is down keeps a floor between calls.
 * - `none`: the ceiling itself, for a single loop that waits for a dependency to come back.
 */
export type Jitter = "full" | "equal" | "none";

export interface Backoff {
  /** The ceiling of the pause after the first failure; it doubles with each further failure. */
  readonly initialMs: number;
  /** Cap of the ceiling (`Infinity`: none). */
  readonly maxMs: number;
  readonly jitter: Jitter;
}

/** Refuses a backoff that cannot be meant (a negative pause, a cap below the start). */
export function checkBackoff(backoff: Backoff): void {
  if (!(backoff.initialMs >= 0) || !(backoff.maxMs >= backoff.initialMs)) {
    throw new RangeError(
      `a backoff needs 0 <= initialMs <= maxMs, got ${backoff.initialMs} and ${backoff.maxMs}`,
    );
  }
}

/**
 * The pause, in whole milliseconds (what a timer can wait), after the `failures`-th failure in a
 * row (1 for the first): a point of the jitter's range under `min(maxMs, initialMs · 2^(failures-1))`.
 * `random` is a source in [0, 1); tests pin it.
 */
export function backoffPauseMs(
  backoff: Backoff,
  failures: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failures - 1));
  switch (backoff.jitter) {
    case "full":
      return Math.round(random() * ceiling);
    case "equal":
      return Math.round(ceiling / 2 + (random() * ceiling) / 2);
    case "none":
      return Math.round(ceiling);
  }
}
