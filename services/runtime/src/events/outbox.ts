/**
 * The outbox (ADR 0037): an event is stored in the same single-document write as the state
 * change that causes it, inside that document. The relay publishes pending entries and then
 * removes them with a compare-and-set, so neither a crash nor a broker outage loses an event
 * (at worst one is published twice, which consumers absorb by event id).
 *
 * Why inside the document: the only write that is atomic on every backend we run is a single
 * document write (FerretDB has no transactions), so the event must ride in it.
 */
import type { EventRecord } from "./event-bus.js";
import type { VersionedDocument } from "../store/document-store.js";

/** An event waiting in its aggregate's document. */
export type OutboxEntry = EventRecord;

/** A document that can carry pending events. */
export interface OutboxCarrier extends VersionedDocument {
  readonly outbox: readonly OutboxEntry[];
  /** True while `outbox` is not empty; indexed, so the relay finds work without a scan. */
  readonly outboxPending: boolean;
  /**
   * A document that exists only to carry events (for example USER_LOGIN, which changes no
   * state): the relay deletes it once its events are published. Such a document is inserted
   * once and never updated, because the store has no conditional delete: the relay deletes it
   * by id, which would also remove an entry appended after the relay read it.
   */
  readonly outboxOnly?: boolean;
}

/** A document that only carries events (`outboxOnly`): see `ServiceOutbox.record`. */
export interface EventCarrierDocument extends OutboxCarrier {
  readonly _id: string;
}
