import { DuplicateKeyError, type Collection, type StoredDocument } from "./document-store.js";

/**
 * Inserts a document under the next integer id (`insert` writes it: plainly, or as a recorded
 * write with its events) (the spec's users and addresses have integer
 * ids). There is no atomic counter on every backend (FerretDB's `$inc` is not atomic under
 * concurrency), so the id is claimed by the insert itself: `_id` is unique, a racing writer
 * that took the same id makes this insert fail, and we retry with the next one.
 *
 * `isTaken` tells an `_id` collision (retry) from another unique-key collision (give up): it
 * is called after a DuplicateKeyError and returns true when the id is what collided.
 */
export async function insertWithNextId<T extends StoredDocument & { readonly _id: number }>(
  collection: Pick<Collection<T>, "findOne" | "get">,
  insert: (id: number) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const last = await collection.findOne(
      {},
      { sort: [{ field: "_id", direction: -1 }], limit: 1, ...(signal ? { signal } : {}) },
    );
    const id = (last?._id ?? 0) + 1;
    try {
      return await insert(id);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError) || (await collection.get(id, signal)) === undefined)
        throw error;
    }
  }
  throw new Error("could not allocate an id after 100 attempts");
}
