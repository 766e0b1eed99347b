/**
 * A correction to KafkaJS 2.2.4 (in maintenance mode, no release to come), applied before the
 * Kafka adapter makes a client (kafka-bus.ts): its per-connection request queue re-arms a timer
 * to look for waiting requests every time it has looked, even when none waits, and then with a
 * negative delay (`throttledUntil`, -1 when never throttled, minus the time). Node runs such a
 * timer after 1 ms, so every open broker connection loops every millisecond for as long as it
 * lives: measured here, an idle producer armed about 900 timers a second and spent 25 ms of CPU
 * a second (2.5 % of a core, per connection, on every Node version). Node 24 also warns about
 * the negative delay, once per process (TimeoutNegativeWarning) (ADR 0038).
 *
 * The queue needs a look only while a request waits: one waits when the connection has its
 * requests in flight or is throttled, and KafkaJS arms the timer when it queues it; a request
 * that completes looks again. So the correction arms nothing when no request waits.
 */
import { createRequire } from "node:module";

/** What this correction touches of KafkaJS's RequestQueue (src/network/requestQueue). */
interface RequestQueuePrototype {
  scheduleCheckPendingRequests: (this: { readonly pending: readonly unknown[] }) => void;
}

let corrected = false;

/** Corrects KafkaJS's request queue once per process; later calls do nothing. */
export function correctKafkaJsRequestQueue(): void {
  if (corrected) return;
  corrected = true;
  // The module KafkaJS itself loads (same file, same CommonJS module instance).
  const RequestQueue = createRequire(import.meta.url)("kafkajs/src/network/requestQueue/index.js") as {
    prototype: RequestQueuePrototype;
  };
  const schedule = RequestQueue.prototype.scheduleCheckPendingRequests;
  RequestQueue.prototype.scheduleCheckPendingRequests = function () {
    if (this.pending.length > 0) schedule.call(this);
  };
}
