/**
 * The platform's one way to run work in the background: a pass, then a pause, then the next
 * pass, for as long as the service runs (sweepers, pollers, the outbox relay; ADR 0086).
 *
 * What every such loop needs and gets here once:
 * - passes never overlap: one loop runs them, so a slow pass delays the next instead of racing it;
 * - `wake()` ends the pause at once (a write that has work for the relay), and a wake during a
 *   pass makes the next pass follow it without a pause; a pass can ask for that itself too
 *   (it stopped at a batch limit);
 * - a task whose work is announced need not look every interval while there is none (ADR 0091):
 *   a pass that found nothing answers `"idle"`, and the next one comes after `idleIntervalMs`
 *   (a slow safety pass), until `arm()` says there may be work again;
 * - a failed pass is logged once when an outage begins and once when a pass succeeds again,
 *   never per failure; the loop goes on, after the interval or after a backoff that grows
 *   with each failure in a row (which `wake()` does not cut: writes during an outage must not
 *   hammer what is down);
 * - `stop()` aborts the signal the pass in flight was given and resolves once that pass has
 *   ended: after it, nothing of the task runs.
 * Pauses do not keep the process alive; the service's server does, and stops the task on
 * shutdown.
 */
import type { EventLogger } from "../events/event-logger.js";
import { backoffPauseMs, checkBackoff, type Backoff } from "../resilience/backoff.js";

/**
 * How often background work at rest looks for what a crashed replica left: events it recorded
 * and did not publish, stock releases it did not make (ADR 0091). Every write and every failure
 * in a process wakes or arms its own loops, and a process passes at start for what its previous
 * run left, so only a replica that crashed and never came back leaves work waiting this long.
 * On MongoDB such a look is an index lookup; on FerretDB 1.24 a scan, so it is rare.
 */
export const safetyPassIntervalMs = 5 * 60_000;

/**
 * What a pass may answer: `"more"` when work is left, so the next pass starts at once;
 * `"idle"` when it found nothing to do, so the next one waits `idleIntervalMs` unless armed.
 */
export type PassOutcome = "more" | "done" | "idle";

export interface PeriodicTaskOptions {
  /** Pause between passes, in milliseconds. */
  readonly intervalMs: number;
  /**
   * Pause after a pass that answered `"idle"`, until `arm()` or `wake()`: how long work nobody
   * announced (another process's, say) may wait. By default `intervalMs`.
   */
  readonly idleIntervalMs?: number;
  /** Whether the first pass runs at `start()`, or only after a first interval (the default). */
  readonly runAtStart?: boolean;
  /**
   * One pass. `signal` aborts when the task stops; a pass should hand it to its calls. A pass
   * with nothing to say resolves with nothing: the next one follows after the interval.
   */
  readonly run: (signal: AbortSignal) => Promise<PassOutcome> | Promise<void>;
  readonly logger: EventLogger;
  /** Logged (error) with the first failure of an outage. */
  readonly failureMessage: string;
  /** Logged (info) with the number of failed passes when a pass succeeds after failures. */
  readonly recoveryMessage: string;
  /** Fields added to the failure's line (what the pass was doing). */
  readonly failureFields?: () => object;
  /** Pauses after failed passes in a row; by default the interval, as after any pass. */
  readonly failureBackoff?: Backoff;
}

export interface PeriodicTask {
  /** Starts the loop; a no-op when it runs already. */
  start(): void;
  /** Ends the pause now, or, during a pass, has the next pass follow it at once. */
  wake(): void;
  /**
   * There may be work again: after an idle pass, the next pass comes at most `intervalMs`
   * from now instead of after `idleIntervalMs`. Unlike `wake()`, it runs nothing at once.
   */
  arm(): void;
  /** Stops the loop, aborting the pass in flight, and resolves once that pass has ended. */
  stop(): Promise<void>;
}

export function createPeriodicTask(options: PeriodicTaskOptions): PeriodicTask {
  const { intervalMs, run, logger } = options;
  const idleIntervalMs = options.idleIntervalMs ?? intervalMs;
  if (!(intervalMs > 0)) throw new RangeError(`intervalMs must be > 0, got ${intervalMs}`);
  if (!(idleIntervalMs >= intervalMs)) {
    throw new RangeError(`idleIntervalMs must be >= intervalMs (${intervalMs}), got ${idleIntervalMs}`);
  }
  if (options.failureBackoff !== undefined) checkBackoff(options.failureBackoff);

  let running: AbortController | undefined;
  /** The latest loop; a restarted loop begins after it, so passes never overlap across a restart. */
  let latest: Promise<void> = Promise.resolve();
  let woken = false;
  /** `arm()` was called since the current pass began. */
  let armed = false;
  /** The last pass found nothing, and nothing has armed the task since. */
  let idle = false;
  /** When the pause under way ends (performance.now()); `arm()` may bring it forward. */
  let pauseEndsAt = 0;
  /** Cuts the current wait short, so the pause looks again at `woken` and `pauseEndsAt`. */
  let interruptPause: (() => void) | undefined;

  /** Waits `ms`, or less when stopped; a wake or an arm shortens it only when `wakeable`. */
  async function pause(ms: number, wakeable: boolean, signal: AbortSignal): Promise<void> {
    pauseEndsAt = performance.now() + ms;
    while (!signal.aborted && !(wakeable && woken)) {
      const left = pauseEndsAt - performance.now();
      if (left <= 0) break;
      // A timer and a function that ends the wait: a wake-up is a call, not an aborted signal
      // (aborting makes an error object, and every recorded write wakes the relay).
      await new Promise<void>((resolve) => {
        const end = (): void => {
          clearTimeout(timer);
          signal.removeEventListener("abort", end);
          if (interruptPause === end) interruptPause = undefined;
          resolve();
        };
        const timer = setTimeout(end, left);
        timer.unref();
        signal.addEventListener("abort", end, { once: true });
        if (wakeable) interruptPause = end;
      });
    }
  }

  async function loop(signal: AbortSignal): Promise<void> {
    // A function, not the property: the compiler would narrow `signal.aborted` to false inside
    // the loop, yet `stop()` flips it while a pass awaits.
    const stopped = (): boolean => signal.aborted;
    let failures = 0;
    if (options.runAtStart !== true) await pause(intervalMs, true, signal);
    while (!stopped()) {
      woken = false;
      armed = false;
      let outcome: PassOutcome | undefined;
      try {
        outcome = (await run(signal)) ?? undefined;
      } catch (error) {
        if (stopped()) break;
        idle = false;
        failures += 1;
        if (failures === 1)
          logger.error({ err: error, ...options.failureFields?.() }, options.failureMessage);
        const backoff = options.failureBackoff;
        await pause(backoff === undefined ? intervalMs : backoffPauseMs(backoff, failures), false, signal);
        continue;
      }
      if (failures > 0) {
        logger.info({ failedPasses: failures }, options.recoveryMessage);
        failures = 0;
      }
      // An arm during the pass counts: it announced work the pass may have missed.
      idle = outcome === "idle" && !armed;
      if (outcome !== "more") await pause(idle ? idleIntervalMs : intervalMs, true, signal);
    }
  }

  return {
    start() {
      if (running !== undefined) return;
      const controller = new AbortController();
      running = controller;
      latest = latest.then(() => loop(controller.signal));
    },
    wake() {
      woken = true;
      interruptPause?.();
    },
    arm() {
      armed = true;
      if (!idle) return;
      idle = false;
      pauseEndsAt = Math.min(pauseEndsAt, performance.now() + intervalMs);
      interruptPause?.();
    },
    async stop() {
      running?.abort(new Error("the background task stopped"));
      running = undefined;
      await latest;
    },
  };
}
