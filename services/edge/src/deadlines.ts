/**
 * Upstream deadlines without a timer or an AbortController per request: calls in flight are
 * kept in one set, and one coarse sweep (every 250 ms, only while calls are in flight) fails
 * those past their deadline. The edge answers 504 then; a network transport also enforces
 * the same deadline upstream (it receives `timeoutMs`).
 */
import { Code, ConnectError } from "@connectrpc/connect";

export type WithinDeadline = <T>(call: Promise<T>, timeoutMs: number) => Promise<T>;

const sweepMs = 250;

export function createDeadlines(): WithinDeadline {
  const inFlight = new Set<{ readonly at: number; readonly reject: (error: ConnectError) => void }>();
  let sweeper: NodeJS.Timeout | undefined;

  const sweep = (): void => {
    const now = Date.now();
    for (const entry of inFlight) {
      if (entry.at > now) continue;
      inFlight.delete(entry);
      entry.reject(new ConnectError("deadline exceeded", Code.DeadlineExceeded));
    }
    if (inFlight.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  return (call, timeoutMs) =>
    new Promise((resolve, reject) => {
      const entry = { at: Date.now() + timeoutMs, reject };
      inFlight.add(entry);
      if (sweeper === undefined) {
        sweeper = setInterval(sweep, sweepMs);
        sweeper.unref();
      }
      call.then(
        (value) => {
          inFlight.delete(entry);
          resolve(value);
        },
        (error: unknown) => {
          inFlight.delete(entry);
          reject(ConnectError.from(error));
        },
      );
    });
}
