/**
 * The one way to change a stored document: read it, let a pure function decide the next
 * content, and compare-and-set it by version (`Collection.swap`), retrying against concurrent
 * writers with one policy (ADR 0036).
 *
 * The policy (the runtime's one `retry`): at most `maxChangeAttempts` reads and swaps, with a
 * random pause before each retry that doubles up to `maxRetryPauseMs` (full jitter). Why a pause at all: on FerretDB
 * a swap first claims the next version with a unique insert and only then writes, so a loser
 * that retries at once finds the winner's claim still in flight and loses again; without a
 * pause the losers of one round spend their attempts against a single winner and load the
 * store while it writes. Why a bound: a change that cannot land in a few seconds is better
 * answered (409, retry) than held; the bound is far above what the services' contention
 * needs (the tests run 30 writers on one document on FerretDB).
 */
import { conflict } from "../errors/domain-error.js";
import { retry, type RetryPolicy } from "../resilience/retry.js";
import type { Collection, VersionedDocument } from "./document-store.js";

/** What a decision returns to leave the document as it is (nothing is written). */
export const unchanged: unique symbol = Symbol("unchanged");
export type Unchanged = typeof unchanged;

/** Reads and swaps tried before a change gives up with a conflict. */
export const maxChangeAttempts = 50;
/** Cap of the random pause between attempts, in milliseconds. */
export const maxRetryPauseMs = 50;

/**
 * Not cut short by the caller's signal: the read that follows a pause honours it (with the
 * signal's own reason).
 */
const contentionPolicy: RetryPolicy = {
  maxAttempts: maxChangeAttempts,
  backoff: { initialMs: 1, maxMs: maxRetryPauseMs, jitter: "full" },
};

/** Thrown by an attempt whose swap another writer won: the one failure worth retrying. */
const lostRace = new Error("another writer changed the document first");

/** Raised when a change lost `maxChangeAttempts` compare-and-sets in a row (409). */
export const contentionMessage = "the resource is being changed concurrently; retry";

/** How a change ended: the document as stored afterwards, and whether this change wrote it. */
export interface ChangeOutcome<T> {
  readonly doc: T;
  readonly changed: boolean;
}

/**
 * Applies `decide` to the current document `id` and stores its answer by compare-and-set,
 * re-reading and deciding again whenever another writer got there first. `decide` must be
 * pure: it may run several times, and only the run whose swap succeeded counts. It returns
 * the next content (its `_v` is ignored: the version is set here) or `unchanged`; it may
 * throw (a refused state move), which ends the change with that error.
 *
 * Resolves undefined when the document does not exist (then `decide` is not called).
 * Rejects with a conflict after `maxChangeAttempts` lost races. `known`, a copy of the document
 * the caller has just read, spares the first read (the relay settles what its query found).
 */
export async function changeDocument<T extends VersionedDocument>(
  collection: Collection<T>,
  id: T["_id"],
  decide: (current: T) => T | Unchanged,
  signal?: AbortSignal,
  known?: T,
): Promise<ChangeOutcome<T> | undefined> {
  try {
    return await retry(
      async (attempt) => {
        const current = attempt === 1 && known !== undefined ? known : await collection.get(id, signal);
        if (current === undefined) return undefined;
        const decided = decide(current);
        if (decided === unchanged) return { doc: current, changed: false };
        const next = { ...decided, _v: current._v + 1 };
        if (await collection.swap(next, current._v, signal)) return { doc: next, changed: true };
        throw lostRace;
      },
      { ...contentionPolicy, retryable: (error) => error === lostRace },
    );
  } catch (error) {
    throw error === lostRace ? conflict(contentionMessage) : error;
  }
}
