/**
 * A signal of its own for one piece of work under a shared one (a consumer's, a caller's in
 * this process), so that the work's trace context can be bound to it (trace-context.ts). It
 * aborts when the shared signal does, with its reason, and the link is undone when the work
 * settles: a long-lived signal keeps nothing of the many it served (`AbortSignal.any` on Node 20
 * does keep an entry per follower).
 */
import { setMaxListeners } from "node:events";

export async function underOwnSignal<T>(
  shared: AbortSignal,
  work: (own: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  // Each store and peer call of the work listens while it runs, as on a request's signal.
  setMaxListeners(0, own.signal);
  const follow = (): void => own.abort(shared.reason);
  if (shared.aborted) follow();
  else shared.addEventListener("abort", follow, { once: true });
  try {
    return await work(own.signal);
  } finally {
    shared.removeEventListener("abort", follow);
  }
}
