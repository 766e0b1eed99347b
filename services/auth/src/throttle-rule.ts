/**
 * One rule of the login throttle (ADR 0115): a leaky bucket of password checks that waits longer
 * and longer once it is full. Each check is charged to the bucket before the password is
 * compared; the bucket forgives one check per `forgiveMs`; while it holds fewer than `free`
 * checks a new one needs no wait, and past that a new check waits `firstDelayMs` after the
 * latest one, twice as long for each further check held, up to `maxDelayMs`. So a client that
 * keeps guessing is slowed down to one guess per `maxDelayMs` at most, and one that stops is
 * forgiven in time; nothing is ever refused for good.
 *
 * The state is two instants, not a counter: `debtUntil`, when every charged check is forgiven,
 * and `lastAt`, when the latest one was charged. These functions only compute; the throttle
 * (login-throttle.ts) stores the state by compare-and-set.
 */

export interface ThrottleRule {
  /** Checks the bucket holds before a new one must wait. */
  readonly free: number;
  /** The wait after the latest check once the bucket holds `free`; doubled for each one more. */
  readonly firstDelayMs: number;
  /** The longest wait. */
  readonly maxDelayMs: number;
  /** The bucket forgives one check per this many milliseconds. */
  readonly forgiveMs: number;
}

export interface ThrottleState {
  /** When every check charged so far is forgiven, epoch milliseconds. */
  readonly debtUntil: number;
  /** When the latest check was charged, epoch milliseconds. */
  readonly lastAt: number;
}

/** A charge as it was made, so that it can be taken back (`refunded`). */
export interface Charge {
  readonly at: number;
  /** `lastAt` before the charge. */
  readonly previousLastAt: number;
}

/** The checks the bucket holds at `now`: those charged and not yet forgiven. */
export function heldAt(rule: ThrottleRule, state: ThrottleState, now: number): number {
  return state.debtUntil <= now ? 0 : Math.ceil((state.debtUntil - now) / rule.forgiveMs);
}

/** How long a new check waits after the latest one while the bucket holds `held` checks. */
export function delayFor(rule: ThrottleRule, held: number): number {
  if (held < rule.free) return 0;
  // 2^30 is past any cap; the exponent is bounded so that the product stays finite.
  return Math.min(rule.firstDelayMs * 2 ** Math.min(held - rule.free, 30), rule.maxDelayMs);
}

/**
 * Milliseconds from `now` until a check may be charged, 0 when it may be now. The bucket only
 * drains with time and the wait only shrinks as it drains, so the first instant a check is let
 * through is the earliest of: when it drains below `free`, or, for each level it will pass
 * through, when it is at that level and that level's wait after `lastAt` is over.
 */
export function waitMs(rule: ThrottleRule, state: ThrottleState | undefined, now: number): number {
  if (state === undefined) return 0;
  const held = heldAt(rule, state, now);
  if (held < rule.free) return 0;
  // The bucket holds at most `level` checks from `debtUntil - level * forgiveMs` on.
  let earliest = state.debtUntil - (rule.free - 1) * rule.forgiveMs;
  for (let level = rule.free; level <= held; level++) {
    const reached = level === held ? now : state.debtUntil - level * rule.forgiveMs;
    earliest = Math.min(earliest, Math.max(reached, state.lastAt + delayFor(rule, level)));
  }
  return Math.max(0, earliest - now);
}

/**
 * The state once a check is charged at `now` (on an empty bucket when there is none). A
 * concurrent login may have charged a later instant first: the latest check stays the latest.
 */
export function charged(rule: ThrottleRule, state: ThrottleState | undefined, now: number): ThrottleState {
  if (state === undefined) return { debtUntil: now + rule.forgiveMs, lastAt: now };
  return { debtUntil: Math.max(state.debtUntil, now) + rule.forgiveMs, lastAt: Math.max(state.lastAt, now) };
}

/**
 * The state once `charge` is taken back (the check succeeded, or another rule refused it):
 * one check fewer, and the latest check's time as before it, unless another came since.
 */
export function refunded(rule: ThrottleRule, state: ThrottleState, charge: Charge): ThrottleState {
  return {
    debtUntil: state.debtUntil - rule.forgiveMs,
    lastAt: state.lastAt === charge.at ? charge.previousLastAt : state.lastAt,
  };
}

/** The state of a bucket that holds nothing from `now` on. */
export function forgiven(state: ThrottleState, now: number): ThrottleState {
  return { debtUntil: Math.min(state.debtUntil, now), lastAt: state.lastAt };
}
