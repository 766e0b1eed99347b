/**
 * The document-store port. Services persist through it and never see which adapter runs:
 * the embedded store (files under the data directory) or the `mongodb` driver (MongoDB, or
 * FerretDB in tests).
 *
 * The port is deliberately small. Its only concurrency primitives are the two that hold on
 * every backend we run (ADR 0035):
 *   - `insert`: atomic, and a unique index rejects a second document with the same key;
 *   - `swap`: compare-and-set of a whole document by its version `_v`. Real MongoDB gives this
 *     natively (a conditional replace is single-document atomic). FerretDB does not (its
 *     conditional updates are read-modify-write without a lock), so the MongoDB adapter claims
 *     each version with a unique-index insert before it writes there.
 * There is no `$inc`, no upsert and no multi-document transaction on purpose.
 */
import { UnavailableDependencyError } from "../errors/unavailable-dependency-error.js";
import type { DatabaseIdentity } from "./database-identity.js";

/** Every stored document has an id; mutable documents also carry a version. */
export interface StoredDocument {
  readonly _id: string | number;
}

/** A document that changes after insert. `_v` starts at 1 and grows by one per `swap`. */
export interface VersionedDocument extends StoredDocument {
  readonly _v: number;
}

type Scalar = string | number | boolean | null;

/** A condition on one field. A bare value means equality. */
export type FieldCondition<V> =
  | V
  | { readonly $in: readonly V[] }
  | { readonly $ne: V }
  | { readonly $gt: V }
  | { readonly $gte: V }
  | { readonly $lt: V }
  | { readonly $lte: V };

/** Conjunction of conditions on top-level scalar fields. */
export type Filter<T> = {
  readonly [K in keyof T]?: T[K] extends Scalar | undefined
    ? FieldCondition<Exclude<T[K], undefined>>
    : never;
};

export interface SortKey<T> {
  readonly field: keyof T & string;
  readonly direction: 1 | -1;
}

export interface FindOptions<T> {
  /** Applied in order; ties broken by `_id` ascending so that pages are stable. */
  readonly sort?: readonly SortKey<T>[];
  readonly skip?: number;
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

export interface IndexSpec<T> {
  readonly fields: readonly (keyof T & string)[];
  readonly unique?: boolean;
}

export interface CollectionSpec<T> {
  readonly name: string;
  readonly indexes?: readonly IndexSpec<T>[];
}

export interface Collection<T extends StoredDocument> {
  /** Atomic. Throws `DuplicateKeyError` when `_id` or a unique index already holds the key. */
  insert(doc: T, signal?: AbortSignal): Promise<void>;
  get(id: T["_id"], signal?: AbortSignal): Promise<T | undefined>;
  findOne(filter: Filter<T>, options?: FindOptions<T>): Promise<T | undefined>;
  find(filter: Filter<T>, options?: FindOptions<T>): Promise<T[]>;
  count(filter: Filter<T>, signal?: AbortSignal): Promise<number>;
  /**
   * Compare-and-set: stores `next` (whose `_v` must be `expected + 1`) only if the stored
   * document still has version `expected`. Returns false when it did not (changed or deleted).
   * May throw `DuplicateKeyError` when `next` violates a unique index.
   */
  swap(next: T & VersionedDocument, expected: number, signal?: AbortSignal): Promise<boolean>;
  /** Deletes by id; returns whether a document was deleted. */
  delete(id: T["_id"], signal?: AbortSignal): Promise<boolean>;
}

/** One database: a service's own. */
export interface DocumentStore {
  /** Which database this is, for its spans (telemetry/store-spans.ts). */
  readonly identity: DatabaseIdentity;
  /** Opens (creating if needed) a collection and its indexes. Idempotent. */
  collection<T extends StoredDocument>(spec: CollectionSpec<T>): Promise<Collection<T>>;
  close(): Promise<void>;
}

/** Opens the database of one service; the adapter decides what a database is. */
export interface StoreProvider {
  open(database: string): Promise<DocumentStore>;
  /**
   * True when the server answers a trivial command within a few seconds; never throws. For
   * readiness (ADR 0112): a server that refuses connections, or accepts them and answers
   * nothing, is false. An embedded store is in the process and always answers.
   */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A unique index (or `_id`) already holds the key. */
export class DuplicateKeyError extends Error {
  override readonly name = "DuplicateKeyError";
  constructor(
    readonly collection: string,
    readonly key: string,
  ) {
    super(`duplicate key in ${collection}: ${key}`);
  }
}

/**
 * The store did not answer: unreachable, connections refused or reset, no server to send to
 * within the driver's wait, or a server that stopped answering. Every operation of an adapter
 * on a server throws it for such failures, with the driver's error as `cause`; a write that
 * throws it may or may not have been applied, as with any lost answer. Requests answer it with
 * UNAVAILABLE (503, `Retry-After`); consumers retry their record (ADR 0110).
 */
export class StoreUnavailableError extends UnavailableDependencyError {
  override readonly name = "StoreUnavailableError";

  constructor(cause: unknown) {
    super("document store", { cause });
  }
}
