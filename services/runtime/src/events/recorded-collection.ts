/**
 * Recorded writes: the one way services change a document that carries events
 * (ADR 0037). A write states the document's next content and the
 * events it causes; this module stores both in one single-document write (the outbox,
 * outbox.ts), sets `_v`, `outbox` and `outboxPending` itself, retries the compare-and-set with
 * the store's one policy (change-document.ts), and wakes the relay. Domain code never writes
 * those three fields, so none can be forgotten.
 */
import { changeDocument, unchanged, type ChangeOutcome, type Unchanged } from "../store/change-document.js";
import { DuplicateKeyError, type Collection } from "../store/document-store.js";
import { withCause } from "./event-cause.js";
import type { OutboxCarrier, OutboxEntry } from "./outbox.js";

/** A document's own content: what domain code writes (the runtime adds the rest). */
export type Unrecorded<T extends OutboxCarrier> = Omit<T, "_v" | "outbox" | "outboxPending" | "outboxOnly">;

/** A decision to write: the next content and the events the change causes (none is fine). */
export interface RecordedChange<T extends OutboxCarrier> {
  readonly next: Unrecorded<T>;
  readonly events?: readonly OutboxEntry[];
}

/** What a recorded collection needs from the service's outbox. */
export interface OutboxHooks {
  /**
   * Wakes the relay: this document was stored with events pending (its stored content), or may
   * have been (its id: the write's answer was lost).
   */
  readonly written: (written: OutboxCarrier | OutboxCarrier["_id"]) => void;
  /**
   * The document is gone, its pending events handed over (see `delete`): an announcement of it
   * is void, or the relay would publish them a second time from the document it was handed.
   */
  readonly deleted: (id: OutboxCarrier["_id"]) => void;
  /** Stores events that no longer have a document (see `delete`). */
  readonly handOver: (entries: readonly OutboxEntry[], signal?: AbortSignal) => Promise<void>;
}

/** Reads as the collection; writes only as recorded writes. */
export interface RecordedCollection<T extends OutboxCarrier> extends Pick<
  Collection<T>,
  "get" | "findOne" | "find" | "count"
> {
  /**
   * Inserts `doc` as version 1 with `events` in its outbox, in one write. Throws
   * `DuplicateKeyError` as `Collection.insert` does. Returns the stored document.
   */
  insert(doc: Unrecorded<T>, events: readonly OutboxEntry[], signal?: AbortSignal): Promise<T>;
  /**
   * Changes document `id` by `decide` (pure; it may run more than once, see `changeDocument`),
   * appending the decision's events to the document's outbox in the same compare-and-set.
   * Undefined when the document does not exist; a conflict after the retry policy's bound.
   */
  change(
    id: T["_id"],
    decide: (current: T) => RecordedChange<T> | Unchanged,
    signal?: AbortSignal,
  ): Promise<ChangeOutcome<T> | undefined>;
  /**
   * Deletes document `id`; events still waiting in it are handed over to a carrier document
   * first, so none is lost (at worst published twice). For documents nobody changes any more:
   * an event appended between the hand-over and the delete would be lost.
   */
  delete(id: T["_id"], signal?: AbortSignal): Promise<boolean>;
}

export function createRecordedCollection<T extends OutboxCarrier>(
  collection: Collection<T>,
  hooks: OutboxHooks,
): RecordedCollection<T> {
  /** The stored form of `content` with `outbox`; the casts are the one place that adds them. */
  function recorded(content: Unrecorded<T>, _v: number, outbox: readonly OutboxEntry[]): T {
    return { ...content, _v, outbox, outboxPending: outbox.length > 0 } as unknown as T;
  }

  return {
    get: (id, signal) => collection.get(id, signal),
    findOne: (filter, options) => collection.findOne(filter, options),
    find: (filter, options) => collection.find(filter, options),
    count: (filter, signal) => collection.count(filter, signal),

    async insert(doc, events, signal) {
      const stored = recorded(doc, 1, withCause(events, signal));
      try {
        await collection.insert(stored, signal);
      } catch (error) {
        // An insert whose answer was lost may have landed; a duplicate key did not.
        if (events.length > 0 && !(error instanceof DuplicateKeyError)) hooks.written(stored._id);
        throw error;
      }
      if (events.length > 0) hooks.written(stored);
      return stored;
    },

    async change(id, decide, signal) {
      // Of the decision whose swap counts (the last one: decisions run one after another).
      const decided = { events: 0 };
      let outcome: ChangeOutcome<T> | undefined;
      try {
        outcome = await changeDocument(
          collection,
          id,
          (current) => {
            const decision = decide(current);
            if (decision === unchanged) return unchanged;
            const events = decision.events ?? [];
            decided.events = events.length;
            return recorded(decision.next, current._v, [...current.outbox, ...withCause(events, signal)]);
          },
          signal,
        );
      } catch (error) {
        // A swap whose answer was lost may have landed, as with `insert`: the relay looks now,
        // not at its safety poll.
        if (decided.events > 0) hooks.written(id);
        throw error;
      }
      if (outcome?.changed === true && decided.events > 0) hooks.written(outcome.doc);
      return outcome;
    },

    async delete(id, signal) {
      const current = await collection.get(id, signal);
      if (current === undefined) return false;
      if (current.outbox.length > 0) await hooks.handOver(current.outbox, signal);
      const deleted = await collection.delete(id, signal);
      hooks.deleted(id);
      return deleted;
    },
  };
}
