import {
  DuplicateKeyError,
  type Collection,
  type CollectionSpec,
  type StoredDocument,
} from "./document-store.js";

/**
 * Integer ids that are never handed out twice (the contract's users and addresses have integer
 * ids). There is no atomic counter on every backend (FerretDB's `$inc` is not atomic under
 * concurrency), so each id is claimed by a unique insert into a claims collection that nothing
 * ever deletes from: of racing writers one gets the id, the others take the next one. Taking
 * "the newest document's id + 1" instead handed a deleted user's id to the next one to register,
 * so an admin's repeated DELETE then removed the wrong person (ADR 0031).
 */
export interface IdClaimDocument extends StoredDocument {
  readonly _id: number;
}

/** The claims collection of the ids of `collection` (named after it). */
export function idClaimsSpec(collection: string): CollectionSpec<IdClaimDocument> {
  return { name: `${collection}_id_claims`, indexes: [] };
}

/**
 * Claims the next id and inserts the document under it (`insert` writes it: plainly, or as a
 * recorded write with its events). An id whose insert fails for another reason (a duplicate
 * email, say) stays claimed: ids may have gaps, never repeats. The newest document counts too,
 * so that data written before claims existed is never collided with.
 */
export async function insertWithNextId<T extends StoredDocument & { readonly _id: number }>(
  collection: Pick<Collection<T>, "findOne" | "get">,
  claims: Collection<IdClaimDocument>,
  insert: (id: number) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const newest = {
    sort: [{ field: "_id" as const, direction: -1 as const }],
    limit: 1,
    ...(signal ? { signal } : {}),
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    const [lastClaim, lastDocument] = await Promise.all([
      claims.findOne({}, newest),
      collection.findOne({}, newest),
    ]);
    const id = Math.max(lastClaim?._id ?? 0, lastDocument?._id ?? 0) + 1;
    try {
      await claims.insert({ _id: id }, signal);
    } catch (error) {
      if (error instanceof DuplicateKeyError) continue; // another writer claimed it first
      throw error;
    }
    try {
      return await insert(id);
    } catch (error) {
      // The id itself collided only with a document from before claims existed: take the next.
      if (!(error instanceof DuplicateKeyError) || (await collection.get(id, signal)) === undefined)
        throw error;
    }
  }
  throw new Error("could not allocate an id after 100 attempts");
}
