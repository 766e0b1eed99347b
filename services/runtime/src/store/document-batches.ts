/**
 * Reading a whole collection, or what a filter selects of it, a batch at a time: what a
 * migration or a backfill goes through without holding more than one batch (ADR 0102).
 */
import type { Collection, Filter, StoredDocument } from "./document-store.js";

export interface BatchOptions {
  /** Documents per batch (default 100). */
  readonly batchSize?: number;
  readonly signal?: AbortSignal;
}

/**
 * Hands the documents `filter` selects to `handle`, a batch at a time in ascending `_id`, each
 * batch read after the one before was handled: a document `handle` changes so that the filter
 * no longer selects it is not read again, and one written meanwhile with a higher id is read
 * in its turn. Resolves with the number of documents handed over.
 */
export async function forEachBatch<T extends StoredDocument>(
  collection: Pick<Collection<T>, "find">,
  filter: Filter<T>,
  handle: (batch: readonly T[]) => Promise<void>,
  options: BatchOptions = {},
): Promise<number> {
  const limit = options.batchSize ?? 100;
  if (!(Number.isSafeInteger(limit) && limit > 0))
    throw new RangeError(`batchSize must be positive, got ${limit}`);
  const byId = [{ field: "_id" as keyof T & string, direction: 1 as const }];
  let after: T["_id"] | undefined;
  let handed = 0;
  for (;;) {
    const page = after === undefined ? filter : ({ ...filter, _id: { $gt: after } } as Filter<T>);
    const batch = await collection.find(page, {
      sort: byId,
      limit,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (batch.length === 0) return handed;
    await handle(batch);
    handed += batch.length;
    after = batch[batch.length - 1]?._id;
    if (batch.length < limit) return handed;
  }
}

/**
 * The filter of the documents that lack `field` (the port's rule: a missing field equals
 * null), such as those written before a field existed.
 */
export function lackingField<T extends StoredDocument>(field: keyof T & string): Filter<T> {
  return { [field]: null } as Filter<T>;
}
