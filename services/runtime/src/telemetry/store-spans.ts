/**
 * A service's document store with a CLIENT span per operation (database-spans.ts), under the
 * service's own tracer, applied where each service's context gets its store, so that both
 * adapters and both topologies trace the same way. The store itself when tracing is off: no
 * wrapper, nothing to pay.
 *
 * Operations are named after the MongoDB commands, on both adapters, so a trace reads the same
 * whichever store runs: `insert`, `find` (get, findOne, find), `count`, `update` (swap: a
 * replace, which the driver sends as `update`; on FerretDB the version claim's commands are part
 * of it) and `delete`. A `DuplicateKeyError` is an answer the caller branches on (an idempotent
 * insert, a taken email): the span keeps `error.type` and no ERROR status. A lost swap (false)
 * is an answer too, not an error.
 */
import {
  DuplicateKeyError,
  type Collection,
  type CollectionSpec,
  type DocumentStore,
  type StoredDocument,
} from "../store/document-store.js";
import { inDatabaseSpan } from "./database-spans.js";
import type { ServiceTelemetry } from "./telemetry.js";

const isDuplicateKey = (error: unknown): boolean => error instanceof DuplicateKeyError;

export function withStoreSpans(store: DocumentStore, telemetry: ServiceTelemetry): DocumentStore {
  if (!telemetry.enabled) return store;
  const { tracer } = telemetry;
  const database = store.identity;
  return {
    identity: database,
    async collection<T extends StoredDocument>(spec: CollectionSpec<T>): Promise<Collection<T>> {
      const inner = await store.collection(spec);
      const operations = {
        insert: { name: "insert", collection: spec.name },
        find: { name: "find", collection: spec.name },
        count: { name: "count", collection: spec.name },
        update: { name: "update", collection: spec.name },
        delete: { name: "delete", collection: spec.name },
      } as const;
      const traced = <R>(
        operation: keyof typeof operations,
        signal: AbortSignal | undefined,
        work: () => Promise<R>,
      ): Promise<R> =>
        inDatabaseSpan(tracer, database, () => operations[operation], signal, work, isDuplicateKey);
      return {
        insert: (doc, signal) => traced("insert", signal, () => inner.insert(doc, signal)),
        get: (id, signal) => traced("find", signal, () => inner.get(id, signal)),
        findOne: (filter, options) => traced("find", options?.signal, () => inner.findOne(filter, options)),
        find: (filter, options) => traced("find", options?.signal, () => inner.find(filter, options)),
        count: (filter, signal) => traced("count", signal, () => inner.count(filter, signal)),
        swap: (next, expected, signal) => traced("update", signal, () => inner.swap(next, expected, signal)),
        delete: (id, signal) => traced("delete", signal, () => inner.delete(id, signal)),
      };
    },
    close: () => store.close(),
  };
}
