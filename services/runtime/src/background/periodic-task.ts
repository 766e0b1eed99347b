/**
 * The platform's one way to run work in the background: a pass, then a pause, then the next
 * pass, for as long as the service runs (sweepers, pollers, the outbox relay; ADR 0086).
 *
 * What every such loop needs and gets here once:
 * - passes never overlap: one loop runs them, so a slow pass delays the next instead of racing it;
 * - `wake()` ends the pause at once (a write that has work for the relay), and a wake during a
 *   pass makes the next pass follow it without a pause; a pass can ask for that itself too
 *   (it stopped at a batch limit);
 * - a failed pass is logged once when an outage begins and once when a pass succeeds again,
 *   never per failure; the loop goes on, after the interval or after a backoff that grows
 *   with each failure in a row (which `wake()` does not cut: writes during an outage must not
 *   hammer what is down);
 * - `stop()` aborts the signal the pass in flight was given and resolves once that pass has
 *   ended: after it, nothing of the task runs.
 * Pauses do not keep the process alive; the service's server does, and stops the task on
 * shutdown.
 */
import { setTimeout as delay } from "node:timers/promises";
import type { EventLogger } from "../events/event-logger.js";
import { backoffPauseMs, checkBackoff, type Backoff } from "../resilience/backoff.js";

/** What a pass may answer: `"more"` when work is left, so the next pass starts at once. */
export type PassOutcome = "more" | "done";

export interface PeriodicTaskOptions {
  /** Pause between passes, in milliseconds. */
  readonly intervalMs: number;
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
  /** Stops the loop, aborting the pass in flight, and resolves once that pass has ended. */
  stop(): Promise<void>;
}

export function createPeriodicTask(options: PeriodicTaskOptions): PeriodicTask {
  const { intervalMs, run, logger } = options;
  if (!(intervalMs > 0)) throw new RangeError(`intervalMs must be > 0, got ${intervalMs}`);
  if (options.failureBackoff !== undefined) checkBackoff(options.failureBackoff);

  let running: AbortController | undefined;
  /** The latest loop; a restarted loop begins after it, so passes never overlap across a restart. */
  let latest: Promise<void> = Promise.resolve();
  let woken = false;
  let endPause: (() => void) | undefined;

  /** Waits `ms`, or less when stopped; a wake ends it only when `wakeable`. */
  async function pause(ms: number, wakeable: boolean, signal: AbortSignal): Promise<void> {
    if (wakeable && woken) return;
    const ended = new AbortController();
    if (wakeable) endPause = () => ended.abort();
    await delay(ms, undefined, { signal: AbortSignal.any([signal, ended.signal]), ref: false }).catch(
      () => undefined,
    );
    endPause = undefined;
  }

  async function loop(signal: AbortSignal): Promise<void> {
    // A function, not the property: the compiler would narrow `signal.aborted` to false inside
    // the loop, yet `stop()` flips it while a pass awaits.
    const stopped = (): boolean => signal.aborted;
    let failures = 0;
    if (options.runAtStart !== true) await pause(intervalMs, true, signal);
    while (!stopped()) {
      woken = false;
      let outcome: PassOutcome | undefined;
      try {
        outcome = (await run(signal)) ?? undefined;
      } catch (error) {
        if (stopped()) break;
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
      if (outcome !== "more") await pause(intervalMs, true, signal);
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
      endPause?.();
    },
    async stop() {
      running?.abort(new Error("the background task stopped"));
      running = undefined;
      await latest;
    },
  };
}
