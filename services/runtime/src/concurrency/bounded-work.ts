/**
 * Bounds work that would otherwise take every core (password hashing): at most `concurrency`
 * tasks run at once, and at most `queue` more wait. Work is admitted first and run second, so a
 * caller learns at once, before it has done anything else, whether there is room; past the
 * bound it is refused rather than queued without end (ADR 0029).
 */
export interface BoundedWorkLimits {
  /** Tasks running at once. */
  readonly concurrency: number;
  /** Admitted tasks waiting for a running place, beyond `concurrency`. */
  readonly queue: number;
}

export interface BoundedWork {
  /** A place for one caller's work, or undefined when every place is taken. */
  admit(): Admission | undefined;
}

export interface Admission {
  /** Runs `task` once a running place is free (any number of times while admitted). */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Gives the place back; idempotent. Every admission must end. */
  end(): void;
}

export function createBoundedWork(limits: BoundedWorkLimits): BoundedWork {
  if (!(limits.concurrency >= 1) || !(limits.queue >= 0)) {
    throw new Error(`bounded work needs concurrency >= 1 and queue >= 0, got ${JSON.stringify(limits)}`);
  }
  let admitted = 0;
  let running = 0;
  const waiting: (() => void)[] = [];

  async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limits.concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      // Hand the running place straight to the next waiter, or give it back.
      const next = waiting.shift();
      if (next === undefined) running--;
      else next();
    }
  }

  return {
    admit() {
      if (admitted >= limits.concurrency + limits.queue) return undefined;
      admitted++;
      let ended = false;
      return {
        run,
        end() {
          if (ended) return;
          ended = true;
          admitted--;
        },
      };
    },
  };
}
