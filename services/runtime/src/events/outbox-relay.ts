/**
 * The outbox relay (ADR 0037): moves events from the documents that carry them to the bus.
 *
 * One pass: take up to `batchSize` documents with events pending, publish their entries in one
 * `bus.publish` (document by document, each document's entries in order), then remove exactly
 * the published entries from each document by compare-and-set. An entry is removed only after
 * the bus accepted it, so a crash or an outage can at worst publish it twice (consumers are
 * idempotent by id), never lose it. Entries appended meanwhile by another write survive the
 * removal: on a version conflict the document is read again and only the published ids are
 * taken out.
 *
 * Where a pass takes its documents from (ADR 0095): every recorded write tells the relay what
 * it stored (`written`, recorded-collection.ts), the document itself or, when the write's
 * answer was lost, its id, which is read back by id. A pass publishes those first, without
 * searching. It searches the collections (the indexed `outboxPending` query, starting from a
 * different collection each time so none starves) only at start, on `kick()` or `drain()`,
 * after a failed pass, when more documents were announced than it keeps in memory, and as the
 * safety net every `pollIntervalMs` (ADR 0091): for events another process recorded and did
 * not publish (it crashed and was not restarted). A search costs a scan on stores that do not
 * use the index (FerretDB), and grows with the data; an announced document costs one read or
 * none.
 *
 * The passes are the runtime's one periodic task (background/periodic-task.ts), so they never
 * overlap; an announcement wakes it at once, so events leave within milliseconds, and a pass
 * that found work is followed by the next at once. When the bus or the store fails, the relay
 * logs once per outage, backs off exponentially, and logs again when it recovers.
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
  /**
   * Document `written` of `collection` was stored with events pending (its stored content), or
   * may have been (its id: a write whose answer was lost). The next pass publishes it, as soon
   * as the current one (if any) ends.
   */
  written(collection: Collection<OutboxCarrier>, written: OutboxCarrier | OutboxCarrier["_id"]): void;
  /**
   * Document `id` of `collection` was deleted, its pending events handed over to a document of
   * their own (announced in turn): an announcement of it not yet taken is dropped.
   */
  deleted(collection: Collection<OutboxCarrier>, id: OutboxCarrier["_id"]): void;
  /**
   * Runs a pass that searches every collection as soon as the current one (if any) ends,
   * instead of waiting for the poll: for events written without telling the relay.
   */
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

/** Announced documents kept per relay before it falls back to a search (ADR 0095). */
export const maxAnnouncedDocuments = 1_000;

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
  /**
   * Documents announced and not yet taken by a pass, per collection, by id: the stored content
   * (the newest version announced), or undefined to read it by id.
   */
  const announced = new Map<
    Collection<OutboxCarrier>,
    Map<OutboxCarrier["_id"], OutboxCarrier | undefined>
  >();
  let announcedCount = 0;
  /** A pass must search the collections: at start, asked to, or announcements were dropped. */
  let searchDue = true;
  let lastSearchAt = 0;
  /** The ids of the entries the last pass published and removed. */
  let lastPublished: ReadonlySet<string> = new Set();
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

  function announce(
    collection: Collection<OutboxCarrier>,
    written: OutboxCarrier | OutboxCarrier["_id"],
  ): void {
    let docs = announced.get(collection);
    if (docs === undefined) {
      docs = new Map<OutboxCarrier["_id"], OutboxCarrier | undefined>();
      announced.set(collection, docs);
    }
    const id = typeof written === "object" ? written._id : written;
    const known = docs.get(id);
    if (!docs.has(id)) announcedCount += 1;
    // An id alone (read it back) wins over any content; otherwise the newest version does.
    if (typeof written !== "object") docs.set(id, undefined);
    else if (!docs.has(id) || (known !== undefined && known._v < written._v)) docs.set(id, written);
    if (announcedCount > maxAnnouncedDocuments) {
      // Under a long outage: the search finds them all without holding them in memory.
      announced.clear();
      announcedCount = 0;
      searchDue = true;
    }
  }

  type Picked = { readonly collection: Collection<OutboxCarrier>; readonly doc: OutboxCarrier };

  /** Up to `batchSize` announced documents, read back by id where only the id is known. */
  async function takeAnnounced(signal: AbortSignal): Promise<Picked[]> {
    const taken: { collection: Collection<OutboxCarrier>; id: OutboxCarrier["_id"]; doc?: OutboxCarrier }[] =
      [];
    for (const [collection, docs] of announced) {
      for (const [id, doc] of docs) {
        if (taken.length === batchSize) break;
        docs.delete(id);
        announcedCount -= 1;
        taken.push(doc === undefined ? { collection, id } : { collection, id, doc });
      }
      if (docs.size === 0) announced.delete(collection);
    }
    const picked: Picked[] = [];
    for (const { collection, id, doc } of taken) {
      const current = doc ?? (await collection.get(id, signal));
      if (current !== undefined && current.outbox.length > 0) picked.push({ collection, doc: current });
    }
    return picked;
  }

  /** Drops the announcement of document `id`, if one waits. */
  function drop(collection: Collection<OutboxCarrier>, id: OutboxCarrier["_id"]): void {
    const docs = announced.get(collection);
    if (docs?.delete(id) !== true) return;
    announcedCount -= 1;
    if (docs.size === 0) announced.delete(collection);
  }

  /**
   * `doc` was published and settled: an announcement of it that is no newer (the write that
   * stored it reporting after a search found it) has nothing left to publish.
   */
  function forget(collection: Collection<OutboxCarrier>, doc: OutboxCarrier): void {
    const known = announced.get(collection)?.get(doc._id);
    if (known !== undefined && known._v <= doc._v) drop(collection, doc._id);
  }

  /** Up to `batchSize` documents with `outboxPending`, across the collections. */
  async function search(signal: AbortSignal): Promise<Picked[]> {
    searchDue = false;
    lastSearchAt = performance.now();
    const picked: Picked[] = [];
    const order = [...collections.slice(rotation), ...collections.slice(0, rotation)];
    rotation = collections.length === 0 ? 0 : (rotation + 1) % collections.length;
    for (const collection of order) {
      const room = batchSize - picked.length;
      if (room === 0) break;
      for (const doc of await collection.find({ outboxPending: true }, { limit: room, signal })) {
        picked.push({ collection, doc });
      }
    }
    // A full batch may have left more behind: the next pass searches again.
    if (picked.length === batchSize) searchDue = true;
    return picked;
  }

  /** One pass; "done" when it found nothing to publish and nothing is left to look at. */
  async function pass(signal: AbortSignal): Promise<"more" | "done"> {
    phase = "find";
    try {
      let picked: Picked[] = [];
      if (announcedCount > 0) picked = await takeAnnounced(signal);
      else if (searchDue || performance.now() - lastSearchAt >= pollIntervalMs) picked = await search(signal);
      if (picked.length === 0) return announcedCount > 0 || searchDue ? "more" : "done";
      phase = "publish";
      const entries = picked.flatMap(({ doc }) => doc.outbox);
      // An announced version may still hold entries the previous pass published (a write that
      // raced its removal): published again they would only be duplicates.
      const records = entries.filter((entry) => !lastPublished.has(entry.id));
      if (records.length > 0)
        await publishWithSpans(telemetry, bus.messagingSystem, records, () => bus.publish(records, signal));
      phase = "remove";
      const published = new Set(entries.map((entry) => entry.id));
      for (const { collection, doc } of picked) {
        await settle(collection, doc, published, signal);
        forget(collection, doc);
      }
      lastPublished = published;
      return "more";
    } catch (error) {
      // What this pass had taken is still pending in the store: the next pass searches.
      searchDue = true;
      throw error;
    }
  }

  /** A pass, and the drain waiters it settles when it found nothing. */
  async function passThenSettleWaiters(signal: AbortSignal): Promise<"more" | "done"> {
    const begun = ++passesBegun;
    if ((await pass(signal)) === "more") return "more";
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
    searchDue = true;
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
      // Drained means nothing pending in the store, announced or not.
      kick();
    });
  }

  return {
    start() {
      running = true;
      task.start();
    },
    written(collection, written) {
      announce(collection, written);
      task.wake();
    },
    deleted: drop,
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
