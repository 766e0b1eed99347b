/**
 * Deadlines without a timer per call: calls register the time they expire, and one interval
 * timer (running only while something is registered) expires them. A timer and an
 * AbortController per call were a third of an in-process call's cost (ADR 0022);
 * expiring up to `intervalMs` late is nothing against deadlines of
 * seconds.
 */
export interface DeadlineSweeper {
  /** Calls `deadline.expire()` once `deadline.at` (epoch ms) has passed, unless disarmed first. */
  arm(deadline: Deadline): void;
  disarm(deadline: Deadline): void;
}

/**
 * What expires: the call itself implements it, so arming allocates nothing (an object and a
 * closure per call showed in the edge's profile).
 */
export interface Deadline {
  readonly at: number;
  expire(): void;
}

export function createDeadlineSweeper(intervalMs = 25): DeadlineSweeper {
  const armed = new Set<Deadline>();
  let timer: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const deadline of armed) {
      if (deadline.at > now) continue;
      armed.delete(deadline);
      deadline.expire();
    }
    if (armed.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    arm(deadline) {
      armed.add(deadline);
      timer ??= setInterval(sweep, intervalMs).unref();
    },
    disarm(deadline) {
      armed.delete(deadline);
    },
  };
}

/**
 * Signals whose owner aborts them at a known deadline (epoch ms) and then answers its own caller
 * at once, whatever the work under it does. A callee that receives one with a deadline no later
 * than its own can run under it as is: no signal, timer or race of its own (the edge's call
 * signals, and the in-process transport's own; see services/edge/src/edge.ts and
 * transport/in-process-transport.ts).
 */
const signalDeadlines = new WeakMap<AbortSignal, number>();

/** Registers `at` as `signal`'s deadline; without one, forgets any it had (a reused signal's). */
export function setSignalDeadline(signal: AbortSignal, at: number | undefined): void {
  if (at === undefined) signalDeadlines.delete(signal);
  else signalDeadlines.set(signal, at);
}

export function signalDeadline(signal: AbortSignal): number | undefined {
  return signalDeadlines.get(signal);
}
