/**
 * The embedded document store (ADR 0040, the default mode): every collection lives in
 * memory and in one append-only journal file (journal.ts) under
 * `<dataDir>/<database>/<collection>.jsonl`, so `npm start` needs no database server and its
 * data survives a restart.
 *
 * Why this is atomic without locks: each operation checks and changes the in-memory state in
 * one synchronous step (the only `await` comes after the change, waiting for the journal), and
 * JavaScript runs one step at a time. So `insert` checks `_id` and every unique index before it
 * changes anything, and `swap` checks `_v` and then the unique indexes, and no other operation
 * can interleave between the check and the change.
 *
 * Documents are stored as their JSON round trip (what a restart would read back) and handed out
 * as copies, so callers can neither mutate stored state nor see it change under them.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { acquireDatabaseLock } from "./database-lock.js";
import type { DatabaseIdentity } from "./database-identity.js";
import { DocumentQuery, fieldOf, isOperatorObject } from "./document-query.js";
import {
  DuplicateKeyError,
  type Collection,
  type CollectionSpec,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type StoreProvider,
  type StoredDocument,
  type VersionedDocument,
} from "./document-store.js";
import { Journal, type DocumentId, type JournalRecord } from "./journal.js";

export interface EmbeddedStoreOptions {
  /** Root directory; one subdirectory per database. */
  readonly dataDir: string;
}

/** Database and collection names become file names: keep them plain. */
const namePattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}$/;

function assertName(kind: string, name: string): void {
  if (!namePattern.test(name)) throw new TypeError(`invalid ${kind} name "${name}"`);
}

function assertVersionStep(next: VersionedDocument, expected: number): void {
  if (next._v !== expected + 1) {
    throw new RangeError(`swap: next._v must be ${expected + 1} (expected + 1), got ${next._v}`);
  }
}

interface Index {
  readonly fields: readonly string[];
  readonly unique: boolean;
  /** Key (JSON of the field values, missing as null) to the ids of the documents holding it. */
  readonly entries: Map<string, Set<DocumentId>>;
}

function indexKey(fields: readonly string[], value: (field: string) => unknown): string {
  return JSON.stringify(fields.map((field) => value(field) ?? null));
}

/** The key as the other adapter reports it (MongoDB's `keyValue`): `{"email":"a@b.c"}`. */
function describeKey(fields: readonly string[], doc: StoredDocument): string {
  return JSON.stringify(Object.fromEntries(fields.map((field) => [field, fieldOf(doc, field) ?? null])));
}

/**
 * A deep copy of a stored document. Stored documents are JSON values (see `toStored`), so a
 * plain recursive copy is exact, and several times faster than `structuredClone`, which
 * matters on every read.
 */
function copyOf<V>(value: V): V {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyOf) as V;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    // A "__proto__" key (possible in parsed JSON) must stay a plain property.
    if (key === "__proto__")
      Object.defineProperty(copy, key, {
        value: copyOf(field),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else copy[key] = copyOf(field);
  }
  return copy as V;
}

function toStored(doc: StoredDocument): StoredDocument {
  const id: unknown = doc._id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) {
    throw new TypeError(`_id must be a string or a finite number, got ${String(id)}`);
  }
  return JSON.parse(JSON.stringify(doc)) as StoredDocument;
}

class EmbeddedCollection implements Collection<StoredDocument> {
  private readonly docs = new Map<DocumentId, StoredDocument>();
  private readonly indexes: Index[] = [];
  private journal: Journal | undefined;

  private constructor(private readonly name: string) {}

  static async open(name: string, file: string): Promise<EmbeddedCollection> {
    const collection = new EmbeddedCollection(name);
    collection.journal = await Journal.open({
      file,
      replay: (record) => {
        collection.replay(record);
      },
      live: () => collection.docs,
    });
    return collection;
  }

  /** Adds the indexes of `specs` that this collection does not have yet. */
  ensureIndexes(specs: readonly IndexSpec<StoredDocument>[]): void {
    for (const spec of specs) {
      const fields: readonly string[] = spec.fields;
      const unique = spec.unique ?? false;
      const existing = this.indexes.find((index) => index.fields.join("\0") === fields.join("\0"));
      if (existing !== undefined) {
        if (existing.unique !== unique) {
          throw new Error(
            `${this.name}: index on ${fields.join(", ")} already exists with unique=${existing.unique}`,
          );
        }
        continue;
      }
      const index: Index = { fields, unique, entries: new Map() };
      for (const doc of this.docs.values()) {
        const key = indexKey(fields, (field) => fieldOf(doc, field));
        const holders = index.entries.get(key);
        if (unique && holders !== undefined) throw new DuplicateKeyError(this.name, describeKey(fields, doc));
        if (holders === undefined) index.entries.set(key, new Set([doc._id]));
        else holders.add(doc._id);
      }
      this.indexes.push(index);
    }
  }

  async insert(doc: StoredDocument, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const journal = this.writable();
    const stored = toStored(doc);
    const conflict = this.docs.has(stored._id)
      ? JSON.stringify({ _id: stored._id })
      : this.uniqueConflict(stored, undefined);
    if (conflict !== undefined) {
      await journal.settled();
      throw new DuplicateKeyError(this.name, conflict);
    }
    this.docs.set(stored._id, stored);
    this.addToIndexes(stored);
    await journal.append({ put: stored });
  }

  async get(id: DocumentId, signal?: AbortSignal): Promise<StoredDocument | undefined> {
    signal?.throwIfAborted();
    const doc = this.docs.get(id);
    return this.afterSettled(doc === undefined ? undefined : copyOf(doc));
  }

  async findOne(
    filter: Filter<StoredDocument>,
    options: FindOptions<StoredDocument> = {},
  ): Promise<StoredDocument | undefined> {
    const exact =
      options.sort === undefined && options.skip === undefined ? this.exactMatch(filter) : undefined;
    if (exact !== undefined) {
      options.signal?.throwIfAborted();
      return this.afterSettled(exact === null ? undefined : copyOf(exact));
    }
    const [first] = await this.find(filter, { ...options, limit: Math.min(options.limit ?? 1, 1) });
    return first;
  }

  async find(
    filter: Filter<StoredDocument>,
    options: FindOptions<StoredDocument> = {},
  ): Promise<StoredDocument[]> {
    options.signal?.throwIfAborted();
    const query = new DocumentQuery(filter, options);
    return this.afterSettled(query.run(this.candidates(filter)).map((doc) => copyOf(doc)));
  }

  async count(filter: Filter<StoredDocument>, signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    if (Object.keys(filter).length === 0) return this.afterSettled(this.docs.size);
    const query = new DocumentQuery(filter);
    let matching = 0;
    for (const doc of this.candidates(filter)) if (query.matches(doc)) matching++;
    return this.afterSettled(matching);
  }

  async swap(next: VersionedDocument, expected: number, signal?: AbortSignal): Promise<boolean> {
    assertVersionStep(next, expected);
    signal?.throwIfAborted();
    const journal = this.writable();
    const current = this.docs.get(next._id);
    if (current === undefined || fieldOf(current, "_v") !== expected) {
      await journal.settled();
      return false;
    }
    const stored = toStored(next);
    const conflict = this.uniqueConflict(stored, stored._id);
    if (conflict !== undefined) {
      await journal.settled();
      throw new DuplicateKeyError(this.name, conflict);
    }
    this.removeFromIndexes(current);
    this.docs.set(stored._id, stored);
    this.addToIndexes(stored);
    await journal.append({ put: stored });
    return true;
  }

  async delete(id: DocumentId, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    const journal = this.writable();
    const current = this.docs.get(id);
    if (current === undefined) {
      await journal.settled();
      return false;
    }
    this.docs.delete(id);
    this.removeFromIndexes(current);
    await journal.append({ delete: id });
    return true;
  }

  async close(): Promise<void> {
    await this.journal?.close();
  }

  private writable(): Journal {
    if (this.journal === undefined) throw new Error(`${this.name}: not open`);
    this.journal.assertWritable();
    return this.journal;
  }

  /** Resolves to `value` once every write it may reflect is in the journal. */
  private async afterSettled<V>(value: V): Promise<V> {
    await this.journal?.settled();
    return value;
  }

  private replay(record: JournalRecord): void {
    if ("put" in record) {
      const previous = this.docs.get(record.put._id);
      if (previous !== undefined) this.removeFromIndexes(previous);
      this.docs.set(record.put._id, record.put);
      this.addToIndexes(record.put);
    } else {
      const previous = this.docs.get(record.delete);
      if (previous !== undefined) this.removeFromIndexes(previous);
      this.docs.delete(record.delete);
    }
  }

  /** The key of the first unique index that another document than `self` holds for `doc`. */
  private uniqueConflict(doc: StoredDocument, self: DocumentId | undefined): string | undefined {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const holders = index.entries.get(indexKey(index.fields, (field) => fieldOf(doc, field)));
      for (const holder of holders ?? []) if (holder !== self) return describeKey(index.fields, doc);
    }
    return undefined;
  }

  private addToIndexes(doc: StoredDocument): void {
    for (const index of this.indexes) {
      const key = indexKey(index.fields, (field) => fieldOf(doc, field));
      const holders = index.entries.get(key);
      if (holders === undefined) index.entries.set(key, new Set([doc._id]));
      else holders.add(doc._id);
    }
  }

  private removeFromIndexes(doc: StoredDocument): void {
    for (const index of this.indexes) {
      const key = indexKey(index.fields, (field) => fieldOf(doc, field));
      const holders = index.entries.get(key);
      holders?.delete(doc._id);
      if (holders?.size === 0) index.entries.delete(key);
    }
  }

  /**
   * The one document an equality filter on `_id` or on exactly the fields of a unique index
   * selects (null: none), without building a query; undefined when the filter is of another
   * kind. The common read (a profile by email, a document by id) takes this path.
   */
  private exactMatch(filter: object): StoredDocument | null | undefined {
    const fields = Object.keys(filter);
    const values = filter as Record<string, unknown>;
    for (const field of fields) {
      const value = values[field];
      if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
        return undefined;
    }
    if (fields.length === 1 && fields[0] === "_id") return this.docs.get(values["_id"] as DocumentId) ?? null;
    for (const index of this.indexes) {
      if (!index.unique || index.fields.length !== fields.length) continue;
      if (!index.fields.every((field) => field in values)) continue;
      const [holder] = index.entries.get(indexKey(index.fields, (field) => values[field])) ?? [];
      return holder === undefined ? null : (this.docs.get(holder) ?? null);
    }
    return undefined;
  }

  /**
   * The documents a filter can match: by `_id`, or through an index whose fields the filter
   * fixes by equality, else all of them. The caller still applies the whole filter.
   */
  private candidates(filter: object): Iterable<StoredDocument> {
    const equalities = new Map<string, unknown>();
    for (const [field, condition] of Object.entries(filter)) {
      if (!isOperatorObject(condition)) equalities.set(field, condition);
    }
    const id = equalities.get("_id");
    if (typeof id === "string" || typeof id === "number") {
      const doc = this.docs.get(id);
      return doc === undefined ? [] : [doc];
    }
    for (const index of this.indexes) {
      if (!index.fields.every((field) => equalities.has(field))) continue;
      const holders = index.entries.get(indexKey(index.fields, (field) => equalities.get(field)));
      return [...(holders ?? [])].flatMap((holder) => this.docs.get(holder) ?? []);
    }
    return this.docs.values();
  }
}

/**
 * The embedded store's `db.system.name`: the conventions name no such system, and it is not
 * MongoDB (ADR 0064).
 */
export const embeddedStoreSystem = "commerce_embedded_store";

class EmbeddedDocumentStore implements DocumentStore {
  private readonly collections = new Map<string, Promise<EmbeddedCollection>>();
  private closing: Promise<void> | undefined;

  private constructor(
    readonly identity: DatabaseIdentity,
    private readonly dir: string,
    private readonly release: () => Promise<void>,
    private readonly onClose: () => void,
  ) {}

  static async open(database: string, dir: string, onClose: () => void): Promise<EmbeddedDocumentStore> {
    await mkdir(dir, { recursive: true });
    return new EmbeddedDocumentStore(
      { system: embeddedStoreSystem, namespace: database },
      dir,
      await acquireDatabaseLock(dir),
      onClose,
    );
  }

  async collection<T extends StoredDocument>(spec: CollectionSpec<T>): Promise<Collection<T>> {
    if (this.closing !== undefined) throw new Error(`${this.dir}: the store is closed`);
    assertName("collection", spec.name);
    let opening = this.collections.get(spec.name);
    if (opening === undefined) {
      opening = EmbeddedCollection.open(spec.name, join(this.dir, `${spec.name}.jsonl`));
      this.collections.set(spec.name, opening);
      opening.catch(() => this.collections.delete(spec.name));
    }
    const collection = await opening;
    collection.ensureIndexes((spec.indexes ?? []) as readonly IndexSpec<StoredDocument>[]);
    // The collection is untyped inside; T is the caller's promise about its documents.
    return collection as unknown as Collection<T>;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const opened = await Promise.allSettled(this.collections.values());
      for (const result of opened) if (result.status === "fulfilled") await result.value.close();
      await this.release();
      this.onClose();
    })();
    return this.closing;
  }
}

/**
 * Opens databases as directories under `dataDir`. A database is held by one process at a time
 * (a lock file), and by one store per provider: opening it again returns the same store.
 */
export function createEmbeddedStoreProvider(options: EmbeddedStoreOptions): StoreProvider {
  const stores = new Map<string, Promise<EmbeddedDocumentStore>>();
  let closed = false;
  return {
    async open(database) {
      if (closed) throw new Error("the store provider is closed");
      assertName("database", database);
      let store = stores.get(database);
      if (store === undefined) {
        store = EmbeddedDocumentStore.open(database, join(options.dataDir, database), () =>
          stores.delete(database),
        );
        stores.set(database, store);
        store.catch(() => stores.delete(database));
      }
      return store;
    },
    // In the process: nothing to be unreachable.
    ping: () => Promise.resolve(!closed),
    async close() {
      closed = true;
      const opened = await Promise.allSettled(stores.values());
      for (const result of opened) if (result.status === "fulfilled") await result.value.close();
    },
  };
}
