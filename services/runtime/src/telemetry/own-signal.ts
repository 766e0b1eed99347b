/**
 * A signal of its own for one piece of work under a shared one (a consumer's, a caller's in
 * this process), so that the work's trace context can be bound to it (trace-context.ts). It
 * aborts when the shared signal does, with its reason.
 *
 * Own signals are reused: once a piece of work settles, its signal serves the next piece under
 * the same shared signal (a consumer's serves every record it handles). Making one (an
 * AbortController, a listener on the shared signal and its removal) was half of what tracing
 * with nothing sampled cost a consumed record (ADR 0061). So a shared
 * signal keeps as many followers as pieces of work ever ran under it at once, linked for its
 * lifetime: a consumer's partitions, a caller's parallel peer calls. The work must not use its
 * signal once it has settled, as a call must not use its request's (the edge reuses one per
 * HTTP/1.1 connection).
 */
import { setMaxListeners } from "node:events";

/** The followers of each shared signal that no work holds now. */
const idle = new WeakMap<AbortSignal, AbortSignal[]>();

export async function underOwnSignal<T>(
  shared: AbortSignal,
  work: (own: AbortSignal) => Promise<T>,
): Promise<T> {
  let free = idle.get(shared);
  if (free === undefined) {
    free = [];
    idle.set(shared, free);
  }
  const own = free.pop() ?? follower(shared);
  try {
    return await work(own);
  } finally {
    // An aborted follower serves nobody again; its shared signal has aborted too.
    if (!own.aborted) free.push(own);
  }
}

/** A new signal that aborts when `shared` does, with its reason. */
function follower(shared: AbortSignal): AbortSignal {
  const own = new AbortController();
  // Each store and peer call of the work listens while it runs, as on a request's signal.
  setMaxListeners(0, own.signal);
  if (shared.aborted) own.abort(shared.reason);
  else shared.addEventListener("abort", () => own.abort(shared.reason), { once: true });
  return own.signal;
}
