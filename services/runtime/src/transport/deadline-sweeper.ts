/**
 * Deadlines without a timer per call: calls register the time they expire, and one interval
 * timer (running only while something is registered) expires them. A timer and an
 * AbortController per call were a third of an in-process call's cost (docs/decisions.md,
 * "Deadlines and cancellation"); expiring up to `intervalMs` late is nothing against deadlines of
 * seconds.
 */
export interface DeadlineSweeper {
  /** Calls `expire` once `at` (epoch ms) has passed, unless the returned disarm ran first. */
  arm(at: number, expire: () => void): Armed;
}

export interface Armed {
  disarm(): void;
}

export function createDeadlineSweeper(intervalMs = 25): DeadlineSweeper {
  const armed = new Set<ArmedDeadline>();
  let timer: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const entry of armed) {
      if (entry.at > now) continue;
      armed.delete(entry);
      entry.expire();
    }
    if (armed.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    arm(at, expire) {
      const entry = new ArmedDeadline(armed, at, expire);
      armed.add(entry);
      timer ??= setInterval(sweep, intervalMs).unref();
      return entry;
    },
  };
}

/** One registration; a class rather than closures, as one is made per call. */
class ArmedDeadline implements Armed {
  constructor(
    private readonly armed: Set<ArmedDeadline>,
    readonly at: number,
    readonly expire: () => void,
  ) {}

  disarm(): void {
    this.armed.delete(this);
  }
}

/**
 * Signals whose owner aborts them at a known deadline (epoch ms) and then answers its own caller
 * at once, whatever the work under it does. A callee that receives one with a deadline no later
 * than its own can run under it as is: no signal, timer or race of its own (the edge's call
 * signals, and the in-process transport's own; see services/edge/src/edge.ts and
 * transport/in-process-transport.ts).
 */
const signalDeadlines = new WeakMap<AbortSignal, number>();

export function setSignalDeadline(signal: AbortSignal, at: number): void {
  signalDeadlines.set(signal, at);
}

export function signalDeadline(signal: AbortSignal): number | undefined {
  return signalDeadlines.get(signal);
}
