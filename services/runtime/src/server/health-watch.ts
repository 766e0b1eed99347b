/**
 * Keeps the answer of a dependency's health check at hand for readiness probes, which must be
 * cheap and synchronous: the check runs at start and then every `intervalMs`, and `healthy()`
 * gives its last answer. A check that throws counts as unhealthy. With `recheckMs`, a healthy
 * dependency whose check fails is checked once more after that pause, and only a second failure
 * in a row turns it unhealthy: one slow answer on a busy machine does not take a process out of
 * rotation, while an outage still shows within two checks.
 */
import type { Logger } from "../logging/logger.js";

export interface HealthWatch {
  /** Runs the first check and starts the periodic ones. */
  start(): Promise<void>;
  /** The last check's answer; false before the first. */
  healthy(): boolean;
  stop(): void;
}

export interface HealthWatchOptions {
  /** What is watched, for the log: e.g. "analytics store". */
  readonly name: string;
  readonly check: () => Promise<boolean>;
  readonly intervalMs: number;
  /** Pause before the check that confirms a failure of a healthy dependency; none by default. */
  readonly recheckMs?: number;
  readonly logger: Logger;
}

export function createHealthWatch(options: HealthWatchOptions): HealthWatch {
  const { name, check, intervalMs, recheckMs, logger } = options;
  let healthy = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function answer(): Promise<boolean> {
    try {
      return await check();
    } catch {
      return false;
    }
  }

  async function probe(): Promise<void> {
    let now = await answer();
    if (!now && healthy && recheckMs !== undefined && !stopped) {
      await new Promise((resolve) => setTimeout(resolve, recheckMs).unref());
      now = await answer();
    }
    if (now !== healthy) {
      if (now) logger.info({ dependency: name }, `${name} is reachable`);
      else logger.warn({ dependency: name }, `${name} is not reachable: not ready`);
    }
    healthy = now;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void probe().finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  return {
    async start() {
      stopped = false;
      await probe();
      schedule();
    },
    healthy: () => healthy,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
