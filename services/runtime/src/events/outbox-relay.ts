/**
 * The outbox relay (ADR 0037): moves events from the documents that carry them to the bus.
 *
 * One pass: find documents with `outboxPending: true` (up to `batchSize`, across the registered
 * collections, starting from a different collection each pass so none starves), publish their
 * entries in one `bus.publish` (document by document, each document's entries in order), then
 * remove exactly the published entries from each document by compare-and-set. An entry is
 * removed only after the bus accepted it, so a crash or an outage can at worst publish it twice
 * (consumers are idempotent by id), never lose it. Entries appended meanwhile by another write
 * survive the removal: on a version conflict the document is read again and only the published
 * ids are taken out.
 *
 * The passes are the runtime's one periodic task (background/periodic-task.ts), so they never
 * overlap. `kick()` wakes it at once (every recorded write calls it once the write is stored,
 * recorded-collection.ts, so events leave within milliseconds); a pass that found work is
 * followed by the next at once; the first pass runs at start, for events a previous run left.
 * The poll interval is only a safety net (ADR 0091): for events another process recorded and
 * did not publish (it crashed and was not restarted), found by the indexed `outboxPending`
 * query. When the bus or the store fails, the relay logs once per outage, backs off
 * exponentially, and logs again when it recovers.
 */
import { createPeriodicTask } from "../background/periodic-task.js";
import { changeDocument, unchanged } from "../store/change-document.js";
import type { Collection } from "../store/document-store.js";
import type { EventBus } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import type { OutboxCarrier } from "./outbox.js";
import { publishWithSpans } from "../telemetry/messaging-spans.js";
import { untraced, type ServiceTelemetry } from "../telemetry/telemetry.js";

export interface OutboxRelayOptions {
  readonly bus: EventBus;
  /** Every collection whose documents carry an outbox; `outboxPending` should be indexed. */
  readonly collections: readonly Collection<OutboxCarrier>[];
  /** How often to look for work nobody kicked about (events of another process). */
  readonly pollIntervalMs: number;
  /** Documents per pass. */
  readonly batchSize: number;
  readonly logger: EventLogger;
  /**
   * The service's telemetry: with tracing on, a PRODUCER span per published record, child of
   * the context the event was recorded in (messaging-spans.ts). None: untraced.
   */
  readonly telemetry?: ServiceTelemetry;
  /** First pause after a failed pass; doubles per failure (default 100 ms). */
  readonly retryDelayMs?: number;
  /** Cap of that pause (default 5000 ms). */
  readonly maxRetryDelayMs?: number;
}

export interface OutboxRelay {
  /** Starts the loop; a no-op when it runs already. */
  start(): void;
  /** Runs a pass as soon as the current one (if any) ends, instead of waiting for the poll. */
  kick(): void;
  /** Stops the loop, aborting the pass in flight; entries it did not remove stay for later. */
  stop(): Promise<void>;
  /**
   * Resolves once a pass that began after this call found nothing pending (tests, graceful
   * shutdown). Waits through an outage; `signal` bounds the wait. Rejects if the relay is not
   * running or stops first.
   */
  drain(signal?: AbortSignal): Promise<void>;
}

type Phase = "find" | "publish" | "remove";

interface DrainWaiter {
  /** Number of passes begun when `drain` was called; a later empty pass settles the waiter. */
  readonly after: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { bus, collections, pollIntervalMs, batchSize, logger } = options;
  const telemetry = options.telemetry ?? untraced;
  const retryDelayMs = options.retryDelayMs ?? 100;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 5000;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  if (!(pollIntervalMs > 0) || !(retryDelayMs > 0) || !(maxRetryDelayMs >= retryDelayMs)) {
    throw new RangeError("pollIntervalMs and retryDelayMs must be > 0, maxRetryDelayMs >= retryDelayMs");
  }

  let running = false;
  let passesBegun = 0;
  let rotation = 0;
  let phase: Phase = "find";
  const drainWaiters = new Set<DrainWaiter>();

  /**
   * Removes the ids in `published` from `doc` by compare-and-set, with the store's one retry
   * policy; entries appended meanwhile stay.
   */
  async function settle(
    collection: Collection<OutboxCarrier>,
    doc: OutboxCarrier,
    published: ReadonlySet<string>,
    signal: AbortSignal,
  ): Promise<void> {
    if (doc.outboxOnly === true) {
      // The store has no conditional delete; an event-only document is never written again
      // after its insert (see OutboxCarrier.outboxOnly), so nothing can be appended meanwhile.
      if (doc.outbox.every((entry) => published.has(entry.id))) await collection.delete(doc._id, signal);
      return;
    }
    await changeDocument(
      collection,
      doc._id,
      (current) => {
        const remaining = current.outbox.filter((entry) => !published.has(entry.id));
        const pending = remaining.length > 0;
        if (remaining.length === current.outbox.length && current.outboxPending === pending) return unchanged;
        return { ...current, outbox: remaining, outboxPending: pending };
      },
      signal,
      doc,
    );
  }

  /** One pass; returns how many documents it handled. */
  async function pass(signal: AbortSignal): Promise<number> {
    phase = "find";
    const picked: { readonly collection: Collection<OutboxCarrier>; readonly doc: OutboxCarrier }[] = [];
    const order = [...collections.slice(rotation), ...collections.slice(0, rotation)];
    rotation = collections.length === 0 ? 0 : (rotation + 1) % collections.length;
    for (const collection of order) {
      const room = batchSize - picked.length;
      if (room === 0) break;
      for (const doc of await collection.find({ outboxPending: true }, { limit: room, signal })) {
        picked.push({ collection, doc });
      }
    }
    if (picked.length === 0) return 0;
    phase = "publish";
    const records = picked.flatMap(({ doc }) => doc.outbox);
    if (records.length > 0) {
      await publishWithSpans(telemetry, bus.messagingSystem, records, () => bus.publish(records, signal));
    }
    phase = "remove";
    const published = new Set(records.map((record) => record.id));
    for (const { collection, doc } of picked) await settle(collection, doc, published, signal);
    return picked.length;
  }

  /** A pass, and the drain waiters it settles when it found nothing. */
  async function passThenSettleWaiters(signal: AbortSignal): Promise<"more" | "done"> {
    const begun = ++passesBegun;
    if ((await pass(signal)) > 0) return "more";
    for (const waiter of drainWaiters) {
      if (waiter.after < begun) {
        drainWaiters.delete(waiter);
        waiter.resolve();
      }
    }
    return "done";
  }

  const task = createPeriodicTask({
    intervalMs: pollIntervalMs,
    runAtStart: true,
    run: passThenSettleWaiters,
    logger,
    failureMessage: "outbox relay: cannot move events (delayed, not lost); retrying with backoff",
    recoveryMessage: "outbox relay: recovered, delayed events are moving again",
    failureFields: () => ({ phase }),
    failureBackoff: { initialMs: retryDelayMs, maxMs: maxRetryDelayMs, jitter: "none" },
  });

  function kick(): void {
    task.wake();
  }

  function drain(signal?: AbortSignal): Promise<void> {
    if (!running) return Promise.reject(new Error("outbox relay is not running"));
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        drainWaiters.delete(waiter);
        reject(signal?.reason as Error);
      };
      const waiter: DrainWaiter = {
        after: passesBegun,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      drainWaiters.add(waiter);
      kick();
    });
  }

  return {
    start() {
      running = true;
      task.start();
    },
    kick,
    async stop() {
      running = false;
      await task.stop();
      for (const waiter of drainWaiters) waiter.reject(new Error("outbox relay stopped before draining"));
      drainWaiters.clear();
    },
    drain,
  };
}
