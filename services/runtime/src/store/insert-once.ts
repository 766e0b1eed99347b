/**
 * An insert that must happen once, and whose failure must be settled, not guessed at (ADR 0087).
 *
 * An insert can fail without saying what happened: its acknowledgement lost (a timeout, a
 * dropped connection) while the write landed, or a driver's own retry of it answering "duplicate
 * key" against the document the first try wrote. A write keyed by a deterministic `_id` (an
 * idempotency key, a sequence number, an id derived from what it is for) can be settled by
 * what holds that id: read it back, and the writer's own rule says whether the holder is its
 * write (landed after all, or by an earlier try of the same request) or another writer's.
 * Only when nothing holds the id is the outcome still open: the write may land later. A writer
 * that is the only one to use its id can close it for good with a fence, a placeholder
 * inserted under the same id: if the fence lands, the write never can; if the id is taken, the
 * write is there.
 */
import { DuplicateKeyError } from "./document-store.js";

export interface InsertOnceOptions<T extends object> {
  /** The insert (plain, or recorded with its events); resolves with the document as stored. */
  readonly insert: () => Promise<T>;
  /** Reads the document that holds the insert's `_id`, if any. */
  readonly read: () => Promise<T | undefined>;
  /** Whether a document found under the id is this write (the writer's own rule). */
  readonly isOurs: (holder: T) => boolean;
  /**
   * For an id nobody else writes: inserts a placeholder under it when the outcome is still open,
   * so that the write cannot land later. None: an open outcome is answered as `unknown`.
   */
  readonly fence?: () => Promise<unknown>;
}

/** How an insert ended; every outcome but `inserted` carries the insert's failure. */
export type InsertOnceOutcome<T extends object> =
  | { readonly kind: "inserted"; readonly doc: T }
  /** The insert failed, yet its write holds the id: it landed (or an earlier try did). */
  | { readonly kind: "ours"; readonly doc: T; readonly error: unknown }
  /** Another writer's document holds the id: this write did not land and never will there. */
  | { readonly kind: "theirs"; readonly holder: T; readonly error: unknown }
  /** The id is free: another unique key of the document collided. */
  | { readonly kind: "key-taken"; readonly error: DuplicateKeyError }
  /** Nothing held the id, and the fence took it: the write never lands. */
  | { readonly kind: "fenced"; readonly error: unknown }
  /** Nothing was seen under the id (or it could not be read), and no fence closed it: it may land later. */
  | { readonly kind: "unknown"; readonly error: unknown };

/** Inserts, and settles a failed insert by what holds its id (see the module's comment). */
export async function insertOnce<T extends object>(
  options: InsertOnceOptions<T>,
): Promise<InsertOnceOutcome<T>> {
  let error: unknown;
  try {
    return { kind: "inserted", doc: await options.insert() };
  } catch (failure) {
    error = failure;
  }
  // A read that fails tells nothing, not even that the id is free.
  let holder: T | undefined;
  let read = true;
  try {
    holder = await options.read();
  } catch {
    read = false;
  }
  if (holder !== undefined) return judge(options, holder, error);
  if (read && error instanceof DuplicateKeyError) return { kind: "key-taken", error };
  if (options.fence === undefined) return { kind: "unknown", error };
  try {
    await options.fence();
    return { kind: "fenced", error };
  } catch (fenceFailure) {
    if (!(fenceFailure instanceof DuplicateKeyError)) return { kind: "unknown", error };
  }
  // The fence found the id taken: the write landed meanwhile.
  const landed = await options.read().catch(() => undefined);
  return landed === undefined ? { kind: "unknown", error } : judge(options, landed, error);
}

function judge<T extends object>(
  options: InsertOnceOptions<T>,
  holder: T,
  error: unknown,
): InsertOnceOutcome<T> {
  return options.isOurs(holder) ? { kind: "ours", doc: holder, error } : { kind: "theirs", holder, error };
}
