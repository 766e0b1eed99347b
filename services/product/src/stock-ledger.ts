/**
 * Stock as an append-only ledger per product (collection `stock_entries`): every change is a
 * new entry with the next sequence number, its signed delta, the balance after it, and its
 * PRODUCT_STOCK_UPDATED event in the same document (the outbox: one single-document write
 * holds the change and its event). The current stock is the balance of the newest entry.
 *
 * Why not a `stock` field with a conditional `$inc`: FerretDB's conditional updates are a read,
 * a check and a write without a lock (FerretDB issue #3040), so two orders could both pass
 * "stock >= quantity" and oversell. The only primitive atomic on MongoDB, FerretDB and the
 * embedded store alike is an insert against a unique index (ADR 0035), and the ledger is
 * built on that alone.
 *
 * Why the ledger never oversells, on every backend:
 *   1. An entry's `_id` is `<productId>#<seq>` and `_id` is unique, so no two entries of a
 *      product share a sequence number: for each seq exactly one writer wins the insert.
 *   2. A writer inserts seq k + 1 only after reading entry k, and computes the new balance from
 *      entry k's balance, refusing when it would be negative. Entry k is the one and only
 *      predecessor that seq k + 1 can ever have (if the read was stale, or another writer got
 *      there first, seq k + 1 already exists and the insert fails; the writer re-reads).
 *   3. Sequence numbers start at 1 and each insert is head + 1, so there are no gaps: the chain
 *      1, 2, …, n is complete, each balance equals its predecessor's plus its own delta, and
 *      each is >= 0 by (2). By induction the newest balance is the sum of all deltas and never
 *      negative, however many writers race, with no lock and no transaction.
 * Idempotency rides on a second unique index, `key`: a change applied twice (a retried
 * reservation, a release that races another release) collides on its key and reports the
 * entry that is already there instead of changing the stock again.
 */
import { unavailable } from "@commerce/runtime/errors";
import type { EventFactory, OutboxEntry, RecordedCollection, Unrecorded } from "@commerce/runtime/events";
import { createKeyedQueue } from "@commerce/runtime/concurrency";
import { type Backoff, retry } from "@commerce/runtime/resilience";
import { insertOnce } from "@commerce/runtime/store";
import { formatTimestamp, type Clock } from "@commerce/runtime/time";
import { ProductStockUpdatedSchema } from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";
import type { StockEntryDocument, StockReason } from "./product-store.js";

/** A relative change, or an absolute target (the admin's "stock is now 40"). */
export type StockAmount = { readonly delta: number } | { readonly setTo: number };

export interface StockChange {
  readonly productId: string;
  /** Idempotency key: a second change with the same key changes nothing. */
  readonly key: string;
  readonly reason: StockReason;
  readonly orderId?: string;
  readonly amount: StockAmount;
}

export type AppendOutcome =
  | { readonly kind: "applied"; readonly entry: StockEntryDocument }
  /** An entry with this key existed already (this change was applied before). */
  | { readonly kind: "already_applied"; readonly entry: StockEntryDocument }
  /** An absolute target equal to the current stock: nothing to record. */
  | { readonly kind: "unchanged"; readonly balance: number }
  /** The change would take the stock below zero; nothing was recorded. */
  | { readonly kind: "insufficient"; readonly balance: number };

export interface StockLedger {
  append(change: StockChange, signal?: AbortSignal): Promise<AppendOutcome>;
  /** Current stock: the newest entry's balance, 0 for a product without entries. */
  balance(productId: string, signal?: AbortSignal): Promise<number>;
  /**
   * The entry recorded under `key`, if any. A query on `key`, which FerretDB answers with a full
   * scan: for rare paths (recovery, refusals), not for every change.
   */
  entry(key: string, signal?: AbortSignal): Promise<StockEntryDocument | undefined>;
}

export interface StockLedgerDeps {
  /** Entries, each written with its PRODUCT_STOCK_UPDATED in the same insert. */
  readonly entries: RecordedCollection<StockEntryDocument>;
  readonly events: EventFactory;
  readonly clock: Clock;
  /** Inserts tried before giving up under contention (each loser re-reads and retries). */
  readonly maxAttempts?: number;
}

/** Enough for a few hundred writers racing on one product; each retry backs off a little. */
const defaultMaxAttempts = 500;
/**
 * A short random pause before the next try, so that the losers of one round do not collide
 * again at once.
 */
const contentionBackoff: Backoff = { initialMs: 1, maxMs: 32, jitter: "full" };
/** Thrown by a try whose sequence number another writer took: the one failure worth retrying. */
const seqTaken = new Error("another writer took this sequence number");
/** Products whose newest entry is remembered (a hint only: any entry that exists will do). */
const maxKnownHeads = 10_000;

export function entryId(productId: string, seq: number): string {
  return `${productId}#${String(seq).padStart(10, "0")}`;
}

export function createStockLedger(deps: StockLedgerDeps): StockLedger {
  const { entries } = deps;
  const maxAttempts = deps.maxAttempts ?? defaultMaxAttempts;

  /** The newest entry seen per product: a lower bound for the next head read (see `head`). */
  const knownHeads = new Map<string, StockEntryDocument>();

  function remember(entry: StockEntryDocument): void {
    knownHeads.delete(entry.productId); // re-insert: Map order is the eviction order
    knownHeads.set(entry.productId, entry);
    if (knownHeads.size > maxKnownHeads) {
      const [oldest] = knownHeads.keys();
      if (oldest !== undefined) knownHeads.delete(oldest);
    }
  }

  /**
   * The newest entry of a product, found by `_id` reads only. Sequence numbers have no gaps
   * (an entry k + 1 is only ever written after entry k was read), so "seq k exists" holds for
   * every k up to the head and for none above it: probe forward from an entry known to exist
   * (the last one this process saw, else seq 1) with doubling steps, then bisect between the
   * last hit and the first miss. In the steady state that is one read (k + 1: missing). Why
   * not a query sorted by seq: FerretDB plans every filter other than `_id` as a full scan,
   * which would make each reservation slower as the ledger grows.
   */
  async function head(productId: string, signal?: AbortSignal): Promise<StockEntryDocument | undefined> {
    const at = (seq: number): Promise<StockEntryDocument | undefined> =>
      entries.get(entryId(productId, seq), signal);
    let known = knownHeads.get(productId) ?? (await at(1));
    if (known === undefined) return undefined;
    let step = 1;
    let missing: number | undefined;
    while (missing === undefined) {
      const probe = await at(known.seq + step);
      if (probe === undefined) missing = known.seq + step;
      else {
        known = probe;
        step *= 2;
      }
    }
    while (missing - known.seq > 1) {
      const middle = Math.floor((known.seq + missing) / 2);
      const probe = await at(middle);
      if (probe === undefined) missing = middle;
      else known = probe;
    }
    remember(known);
    return known;
  }

  function entry(key: string, signal?: AbortSignal): Promise<StockEntryDocument | undefined> {
    return entries.findOne({ key }, signal ? { signal } : {});
  }

  /** The entry and its events (none for INITIAL). */
  function build(
    change: StockChange,
    seq: number,
    delta: number,
    balance: number,
  ): { readonly entry: Unrecorded<StockEntryDocument>; readonly events: readonly OutboxEntry[] } {
    // INITIAL is part of creating the product, whose PRODUCT_CREATED carries the stock.
    const events =
      change.reason === "INITIAL"
        ? []
        : [
            deps.events.event(
              ProductStockUpdatedSchema,
              {
                productId: change.productId,
                stock: balance,
                delta,
                reason: change.reason,
                orderId: change.orderId ?? "",
              },
              change.productId,
            ),
          ];
    const entry = {
      _id: entryId(change.productId, seq),
      productId: change.productId,
      seq,
      delta,
      balance,
      reason: change.reason,
      ...(change.orderId === undefined ? {} : { orderId: change.orderId }),
      key: change.key,
      at: formatTimestamp(deps.clock()),
    };
    return { entry, events };
  }

  // Appends to one product from this process queue up instead of racing for the next sequence
  // number (a hot product would otherwise spend most attempts losing); other processes can
  // still collide, and the unique `_id` settles that exactly as before.
  const perProduct = createKeyedQueue();

  /**
   * One try at the next sequence number; throws `seqTaken` when another writer got it. The first
   * try of an append builds on the newest entry this process knows, without reading whether a
   * newer one exists: the insert of the next sequence number is that check (it fails when the
   * number is taken, and the next try reads the head). A known entry is one that was read or
   * written, and entries never change their balance, so this is the same as having just read it.
   * Only a decision that writes nothing (refused, unchanged) is taken on the head read afresh.
   */
  async function tryAppend(
    change: StockChange,
    signal: AbortSignal | undefined,
    firstTry: boolean,
  ): Promise<AppendOutcome> {
    const known = firstTry ? knownHeads.get(change.productId) : undefined;
    const last = known ?? (await head(change.productId, signal));
    const balance = last?.balance ?? 0;
    const delta = "delta" in change.amount ? change.amount.delta : change.amount.setTo - balance;
    if (known !== undefined && (balance + delta < 0 || (delta === 0 && change.reason !== "INITIAL"))) {
      return tryAppend(change, signal, false);
    }
    if (delta === 0 && change.reason !== "INITIAL") {
      const existing = await entry(change.key, signal);
      return existing ? { kind: "already_applied", entry: existing } : { kind: "unchanged", balance };
    }
    if (balance + delta < 0) {
      // A retry of a change that was applied earlier must not read as "insufficient".
      const existing = await entry(change.key, signal);
      return existing ? { kind: "already_applied", entry: existing } : { kind: "insufficient", balance };
    }
    const next = build(change, (last?.seq ?? 0) + 1, delta, balance + delta);
    const outcome = await insertOnce({
      insert: () => entries.insert(next.entry, next.events, signal),
      read: () => entries.get(next.entry._id, signal),
      // The entry at this sequence number is this change's when it carries the change's key.
      isOurs: (holder) => holder.key === change.key,
    });
    switch (outcome.kind) {
      case "inserted":
        remember(outcome.doc);
        return { kind: "applied", entry: outcome.doc };
      case "ours":
        return { kind: "already_applied", entry: outcome.doc };
      case "key-taken": {
        // The sequence number is free, so the key collided: the change was applied before.
        const existing = await entry(change.key, signal);
        if (existing !== undefined) return { kind: "already_applied", entry: existing };
        throw seqTaken;
      }
      case "theirs":
        throw seqTaken;
      case "fenced":
      case "unknown":
        throw outcome.error;
    }
  }

  async function appendOnce(change: StockChange, signal: AbortSignal | undefined): Promise<AppendOutcome> {
    try {
      return await retry((attempt) => tryAppend(change, signal, attempt === 1), {
        maxAttempts,
        backoff: contentionBackoff,
        retryable: (error) => error === seqTaken,
      });
    } catch (error) {
      if (error === seqTaken) throw unavailable("the stock of this product is changing too fast; retry");
      throw error;
    }
  }

  return {
    append: (change, signal) => perProduct(change.productId, () => appendOnce(change, signal)),

    async balance(productId, signal) {
      return (await head(productId, signal))?.balance ?? 0;
    },

    entry,
  };
}
