/**
 * The document store on the `mongodb` driver: real MongoDB in clusters, FerretDB 1.24 (on PostgreSQL)
 * in local tests. Filters, sorts and windows translate 1:1 to MongoDB queries; duplicate keys
 * become `DuplicateKeyError`; the request's abort signal reaches every read (the driver accepts
 * `signal` on find, findOne and countDocuments) and is checked before every write (the driver
 * takes none there, and a write abandoned halfway would leave its outcome unknown).
 *
 * `swap` differs by backend, detected once per provider through `buildInfo` (FerretDB adds a
 * `ferretdbVersion` field): see `MongoCollection.swap`.
 *
 * A server that does not answer (connections refused or reset, none to select, one that stopped
 * answering) fails every operation with `StoreUnavailableError`, and soon (ADR 0112): the
 * driver waits `serverSelectionTimeoutMS` 2 s (not 30) for a server to send to, gives a
 * connection and each look at the server `connectTimeoutMS` 5 s (not 30), and looks every
 * `heartbeatFrequencyMS` 2 s (not 10) while it polls, so a wedged server is seen within about
 * 7 s, and its operations in flight are cut then. No socket timeout: an operation a busy but
 * healthy server takes long over is waited for, as its caller's signal allows. Values the
 * connection string sets win.
 */
import { randomUUID } from "node:crypto";
import {
  MongoClient,
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Collection as DriverCollection,
  type Db,
  type Filter as DriverFilter,
  type Sort,
} from "mongodb";
import { isConnectionFailure } from "../errors/infrastructure-failure.js";
import { retry } from "../resilience/retry.js";
import {
  DuplicateKeyError,
  StoreUnavailableError,
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
import type { DatabaseIdentity } from "./database-identity.js";

export interface MongoStoreOptions {
  readonly url: string;
  /**
   * Whether `swap` claims each version before writing it (see `MongoCollection.swap`).
   * Detected when absent: on for FerretDB, off for MongoDB. Turning it on for MongoDB is safe
   * (slower); turning it off for FerretDB loses updates under concurrency.
   */
  readonly versionClaims?: boolean;
  /**
   * How old a claim must be before a stuck document is rolled forward to it. Longer than any
   * plausible pause between a winner's claim and its write. Default 5 s.
   */
  readonly claimTimeoutMs?: number;
}

type DocumentId = StoredDocument["_id"];

/** What the driver sees of a stored document: our ids are strings or numbers, not ObjectIds. */
interface DriverDocument {
  readonly _id: DocumentId;
  readonly [field: string]: unknown;
}

/** One claimed version of one document, in `<collection>.__versions`. */
interface VersionClaim {
  /** `<JSON of the document id>@<version>`: unique, so one claimer per version wins. */
  readonly _id: string;
  readonly docId: DocumentId;
  /** Tells this claim from a later one with the same `_id`, so owners only delete their own. */
  readonly token: string;
  readonly claimedAt: Date;
  /** The full document of the claimed version; rollers write exactly this. */
  readonly doc: DriverDocument;
  /** Set by a roller before it writes `doc`, so the winner knows its version got written. */
  readonly rolledForward?: boolean;
}

const defaultClaimTimeoutMs = 5_000;

/** The driver's waits (see the module comment), unless the connection string sets them. */
const driverWaits = {
  serverSelectionTimeoutMS: 2_000,
  connectTimeoutMS: 5_000,
  heartbeatFrequencyMS: 2_000,
} as const;

/** How long a readiness ping may take before the server counts as not answering. */
const pingTimeoutMs = 3_000;

/**
 * How long the first command (`buildInfo`) waits for a server that is still starting, as the
 * driver's default selection wait did: a process started beside its store does not fail for it.
 */
const firstContactMs = 30_000;

/** `driverWaits` without those `url` names itself (`?serverSelectionTimeoutMS=…`). */
function waitsNotIn(url: string): Partial<typeof driverWaits> {
  const query = url.includes("?") ? url.slice(url.indexOf("?") + 1).toLowerCase() : "";
  const named = new Set(query.split("&").map((pair) => pair.split("=")[0]));
  return Object.fromEntries(Object.entries(driverWaits).filter(([name]) => !named.has(name.toLowerCase())));
}

/** Server error codes of a server that is going away or not the primary (SDAM's state changes). */
const stateChangeCodes = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * True for a driver error that says the server did not answer, not that it refused the
 * operation; also for Node's own error of a connection reset or refused, which the driver
 * sometimes lets through unwrapped (a write to a socket reset under it).
 */
function isUnanswered(error: unknown): boolean {
  if (isConnectionFailure(error)) return true;
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError
  )
    return true;
  if (error instanceof MongoServerError && typeof error.code === "number" && stateChangeCodes.has(error.code))
    return true;
  return error instanceof MongoError && error.hasErrorLabel("RetryableWriteError");
}

/** `StoreUnavailableError` for a server that did not answer; any other error unchanged. */
function storeFailure(error: unknown): unknown {
  return isUnanswered(error) ? new StoreUnavailableError(error) : error;
}

/** Runs a driver call; a server that did not answer becomes `StoreUnavailableError`. */
async function onServer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeFailure(error);
  }
}

/** A shallow copy: the driver adds fields to what it is given (e.g. a generated `_id`). */
function toDriver(doc: StoredDocument): DriverDocument {
  return { ...doc };
}

function claimId(id: DocumentId, version: number): string {
  return `${JSON.stringify(id)}@${version}`;
}

function assertVersionStep(next: VersionedDocument, expected: number): void {
  if (next._v !== expected + 1) {
    throw new RangeError(`swap: next._v must be ${expected + 1} (expected + 1), got ${next._v}`);
  }
}

function assertCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

function sortOf<T>(options: FindOptions<T>): Sort {
  const keys: [string, 1 | -1][] = (options.sort ?? []).map((key) => [key.field, key.direction]);
  // Ties by _id ascending, as the port promises (and unless _id is a sort key already).
  if (!keys.some(([field]) => field === "_id")) keys.push(["_id", 1]);
  return keys;
}

/** What FerretDB's internal error says of a unique-index violation, by backend. */
const ferretDbDuplicateKeyMessages = ["(SQLSTATE 23505)", "UNIQUE constraint failed"] as const;

class MongoCollection<T extends StoredDocument> implements Collection<T> {
  private readonly versions: DriverCollection<VersionClaim>;

  constructor(
    private readonly name: string,
    private readonly documents: DriverCollection<DriverDocument>,
    db: Db,
    private readonly uniqueIndexes: readonly (readonly string[])[],
    private readonly ferretDb: boolean,
    private readonly versionClaims: boolean,
    private readonly claimTimeoutMs: number,
  ) {
    this.versions = db.collection<VersionClaim>(`${name}.__versions`);
  }

  async insert(doc: T, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    await onServer(async () => {
      try {
        await this.documents.insertOne(toDriver(doc));
      } catch (error) {
        throw await this.mapDuplicateKey(error, doc, true);
      }
    });
  }

  async get(id: T["_id"], signal?: AbortSignal): Promise<T | undefined> {
    const found = await onServer(() => this.documents.findOne({ _id: id }, { signal }));
    return (found ?? undefined) as unknown as T | undefined;
  }

  async findOne(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T | undefined> {
    const [first] = await this.find(filter, { ...options, limit: Math.min(options.limit ?? 1, 1) });
    return first;
  }

  async find(filter: Filter<T>, options: FindOptions<T> = {}): Promise<T[]> {
    assertCount("skip", options.skip);
    assertCount("limit", options.limit);
    options.signal?.throwIfAborted();
    // The port's limit 0 means "no documents" (MongoDB's would mean "no limit").
    if (options.limit === 0) return [];
    const cursor = this.documents.find(filter as DriverFilter<DriverDocument>, {
      sort: sortOf(options),
      signal: options.signal,
      ...(options.skip === undefined ? {} : { skip: options.skip }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    });
    return (await onServer(() => cursor.toArray())) as unknown as T[];
  }

  count(filter: Filter<T>, signal?: AbortSignal): Promise<number> {
    return onServer(() => this.documents.countDocuments(filter, { signal }));
  }

  async delete(id: T["_id"], signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    return onServer(async () => {
      const deleted = (await this.documents.deleteOne({ _id: id })).deletedCount === 1;
      // A later document with this id starts again at version 1: its claims must not be taken
      // for leftovers of this one.
      if (this.versionClaims) await this.versions.deleteMany({ docId: id });
      return deleted;
    });
  }

  /**
   * Compare-and-set by `_v`.
   *
   * On MongoDB a conditional `replaceOne({ _id, _v: expected }, next)` is the whole story:
   * single-document writes are atomic there.
   *
   * On FerretDB 1.24 that replace is a read, a check and a write without a lock (FerretDB
   * issue #3040): two writers can both read version `expected`, both pass the check and both
   * write, and one update is lost. Unique indexes, however, are atomic there. So a writer first
   * claims the version it is about to create by inserting `<id>@<expected + 1>` into
   * `<collection>.__versions`. Only one writer per version can win that insert; losers return
   * false. The winner then does the conditional replace. Why that is enough: version k + 1 has
   * exactly one writer, and whoever writes k + 2 read k + 1 first, i.e. after its write landed,
   * so the unlocked read-check-write never races with another write of the same document.
   *
   * Recovery: a winner that dies between its claim and its write leaves the document stuck at
   * `expected` behind a claim nobody will fulfil. A loser that finds the document still at
   * `expected` and the claim older than `claimTimeoutMs` rolls the document forward to the
   * claimed content, then returns false so that its caller re-reads. Concurrent rollers agree
   * because they all write the same content (the claim's). Before writing, a roller marks the
   * claim `rolledForward`, so a winner that was only slow, and whose own replace then finds the
   * document already moved on, reports success rather than a failure that its caller would
   * retry (which would apply the change twice).
   *
   * Residual window: a winner alive but stalled for longer than `claimTimeoutMs` between its
   * claim and the end of its write may race with a roller (both writing the same content) and,
   * if the next version is written while one of those two unlocked replaces is between its
   * read and its write, the late one can set the document back to that content. That needs a
   * multi-second stall inside a request, on the test backend only. Also, a claim left by a
   * crash while its document was deleted and the id then reused could roll the new document
   * forward; ids are not reused after delete in our services. Claim timestamps come from the
   * claimers' clocks (one machine in tests).
   *
   * Claims are cleaned as they stop mattering: the winner of k + 1 deletes the claim of k, a
   * failed winner deletes its own, `delete` deletes all claims of the document.
   */
  async swap(next: T & VersionedDocument, expected: number, signal?: AbortSignal): Promise<boolean> {
    assertVersionStep(next, expected);
    signal?.throwIfAborted();
    return onServer(() => this.claimAndReplace(next, expected));
  }

  /** `swap`'s driver calls (see `swap`). */
  private async claimAndReplace(next: T & VersionedDocument, expected: number): Promise<boolean> {
    if (!this.versionClaims) return this.replaceAt(next, expected);

    const id = next._id;
    const claim: VersionClaim = {
      _id: claimId(id, next._v),
      docId: id,
      token: randomUUID(),
      claimedAt: new Date(),
      doc: toDriver(next),
    };
    try {
      await this.versions.insertOne(claim);
    } catch (error) {
      if (!this.isDuplicateKey(error)) throw error;
      await this.rollForwardIfStuck(claim._id, id, expected);
      return false;
    }

    let stored: boolean;
    try {
      stored = await this.replaceAt(next, expected);
    } catch (error) {
      // A unique-index conflict: nothing was written, so release the version. Any other error
      // leaves the outcome unknown: keep the claim, so that only this content can ever become
      // that version (rolled forward if it was not written).
      if (error instanceof DuplicateKeyError)
        await this.versions.deleteOne({ _id: claim._id, token: claim.token });
      throw error;
    }
    if (!stored) {
      const mine = await this.versions.findOne({ _id: claim._id, token: claim.token });
      if (mine?.rolledForward !== true) {
        await this.versions.deleteOne({ _id: claim._id, token: claim.token });
        return false;
      }
    }
    // Version 1 is written by an insert and never claimed: nothing to clean (on FerretDB a delete
    // that finds nothing reads the whole claims collection).
    if (expected > 1) await this.versions.deleteOne({ _id: claimId(id, expected) });
    return true;
  }

  /**
   * The conditional replace; true when the stored document was at `expected`. On FerretDB it is
   * an unlocked read-check-write (see `swap`): the version claim is what makes this writer the
   * only one for version `expected + 1`. (On FerretDB's SQLite backend, which the tests no longer
   * run, `{ _id, _v }` was a scan of the collection and the check was a separate read by `_id`;
   * on PostgreSQL both fields filter in the database, through the `_id` index, ADR 0121.)
   */
  private async replaceAt(next: T & VersionedDocument, expected: number): Promise<boolean> {
    try {
      const result = await this.documents.replaceOne({ _id: next._id, _v: expected }, toDriver(next));
      return result.matchedCount === 1;
    } catch (error) {
      throw await this.mapDuplicateKey(error, next, false);
    }
  }

  /** The loser's side of `swap` on FerretDB: finish a claim whose winner seems gone. */
  private async rollForwardIfStuck(id: string, docId: DocumentId, expected: number): Promise<void> {
    const claim = await this.versions.findOne({ _id: id });
    if (claim === null || Date.now() - claim.claimedAt.getTime() < this.claimTimeoutMs) return;
    const current = await this.documents.findOne({ _id: docId }, { projection: { _v: 1 } });
    if (current?.["_v"] !== expected) return;
    const marked = await this.versions.updateOne(
      { _id: id, token: claim.token },
      { $set: { rolledForward: true } },
    );
    if (marked.matchedCount !== 1) return;
    try {
      // Checked above that the document is at `expected`; by `_id` alone for FerretDB's sake.
      await this.documents.replaceOne({ _id: docId }, claim.doc);
    } catch (error) {
      if (!this.isDuplicateKey(error)) throw error;
      // The claimed content can never be stored; release the version so others can proceed.
      await this.versions.deleteOne({ _id: id, token: claim.token });
    }
  }

  /**
   * FerretDB reports a unique-index violation by an update as an internal error carrying its
   * backend's message, not as code 11000: PostgreSQL's (SQLSTATE 23505) or SQLite's.
   */
  private isDuplicateKey(error: unknown): boolean {
    if (!(error instanceof MongoServerError)) return false;
    if (error.code === 11000) return true;
    return this.ferretDb && ferretDbDuplicateKeyMessages.some((message) => error.message.includes(message));
  }

  /**
   * `DuplicateKeyError` for a duplicate key, any other error unchanged. The key is MongoDB's
   * `keyValue`; FerretDB sends none, so it is found by looking for the holder of each key.
   */
  private async mapDuplicateKey(error: unknown, doc: StoredDocument, checkId: boolean): Promise<unknown> {
    if (!this.isDuplicateKey(error)) return error;
    const keyValue: unknown = error instanceof MongoServerError ? error.errorResponse["keyValue"] : undefined;
    if (typeof keyValue === "object" && keyValue !== null) {
      return new DuplicateKeyError(this.name, JSON.stringify(keyValue));
    }
    const value = (field: string): unknown => (doc as unknown as Record<string, unknown>)[field] ?? null;
    if (checkId && (await this.documents.countDocuments({ _id: doc._id }, { limit: 1 })) > 0) {
      return new DuplicateKeyError(this.name, JSON.stringify({ _id: doc._id }));
    }
    for (const fields of this.uniqueIndexes) {
      const key = Object.fromEntries(fields.map((field) => [field, value(field)]));
      if ((await this.documents.countDocuments({ ...key, _id: { $ne: doc._id } }, { limit: 1 })) > 0) {
        return new DuplicateKeyError(this.name, JSON.stringify(key));
      }
    }
    return new DuplicateKeyError(this.name, error instanceof Error ? error.message : "unknown key");
  }
}

interface Backend {
  readonly ferretDb: boolean;
  readonly versionClaims: boolean;
}

class MongoDocumentStore implements DocumentStore {
  constructor(
    readonly identity: DatabaseIdentity,
    private readonly db: Db,
    private readonly backend: Backend,
    private readonly claimTimeoutMs: number,
  ) {}

  async collection<T extends StoredDocument>(spec: CollectionSpec<T>): Promise<Collection<T>> {
    const documents = this.db.collection<DriverDocument>(spec.name);
    const indexes: readonly IndexSpec<T>[] = spec.indexes ?? [];
    await onServer(async () => {
      // createIndex is idempotent for an identical spec.
      for (const index of indexes) {
        await documents.createIndex(
          index.fields.map((field): [string, 1] => [field, 1]),
          { unique: index.unique ?? false },
          {},
        );
      }
      if (this.backend.versionClaims) {
        await this.db.collection(`${spec.name}.__versions`).createIndex({ docId: 1 }, {}, {});
      }
    });
    return new MongoCollection<T>(
      spec.name,
      documents,
      this.db,
      indexes.filter((index) => index.unique === true).map((index) => index.fields),
      this.backend.ferretDb,
      this.backend.versionClaims,
      this.claimTimeoutMs,
    );
  }

  /** The connection pool belongs to the provider; one database holds nothing of its own. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * One `MongoClient` (one connection pool) per provider; `open(name)` is that server's database
 * `name`. No connection is made before the first `open`.
 */
export function createMongoStoreProvider(options: MongoStoreOptions): StoreProvider {
  // ignoreUndefined: an undefined field is absent, as in the embedded store (not null).
  const client = new MongoClient(options.url, { ignoreUndefined: true, ...waitsNotIn(options.url) });
  // The server spans name: the connection string's host when it names one (a seed list of
  // several names a replica set, of which no one host is the server).
  const [host, ...others] = client.options.hosts;
  const server =
    host?.host !== undefined && host.port !== undefined && others.length === 0
      ? { server: { address: host.host, port: host.port } }
      : {};
  let backend: Promise<Backend> | undefined;
  const detect = async (): Promise<Backend> => {
    const info = await retry(() => onServer(() => client.db("admin").command({ buildInfo: 1 })), {
      maxAttempts: Infinity,
      deadlineMs: firstContactMs,
      backoff: { initialMs: 250, maxMs: 1_000, jitter: "none" },
      retryable: (error) => error instanceof StoreUnavailableError,
    });
    const ferretDb = "ferretdbVersion" in info;
    return { ferretDb, versionClaims: options.versionClaims ?? ferretDb };
  };
  return {
    async open(database) {
      backend ??= detect();
      backend.catch(() => (backend = undefined));
      return new MongoDocumentStore(
        { system: "mongodb", namespace: database, ...server },
        client.db(database),
        await backend,
        options.claimTimeoutMs ?? defaultClaimTimeoutMs,
      );
    },
    async ping() {
      try {
        await client.db("admin").command({ ping: 1 }, { signal: AbortSignal.timeout(pingTimeoutMs) });
        return true;
      } catch {
        return false;
      }
    },
    close() {
      return client.close();
    },
  };
}
