/**
 * The CLIENT span of one database operation, per the semantic conventions' database spans:
 * named `<db.operation.name> <db.collection.name>`, with `db.system.name`, `db.namespace`,
 * `db.collection.name`, `db.operation.name` and, for a networked store, `server.address` and
 * `server.port`. Never the query, the filter's values nor the documents: they hold personal
 * data (emails, names, addresses).
 *
 * Only under a span, found from the call's signal (trace-context.ts): a request's SERVER span,
 * a consumer's CONSUMER span. Store work outside any (the outbox relay's polls and its settling of published entries, start-up
 * bootstrap, index creation) would otherwise make a root trace per operation, several a second
 * for an idle relay, that says nothing about any request (ADR 0064).
 */
import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Tracer,
} from "@opentelemetry/api";
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from "@opentelemetry/semantic-conventions";
import type { DatabaseIdentity } from "../store/database-identity.js";
import { sampledOut, traceContextOf } from "./trace-context.js";

/** One operation on one collection (table); the collection is absent when not known. */
export interface DatabaseOperation {
  readonly name: string;
  readonly collection?: string;
}

/**
 * Runs `work` inside a CLIENT span of `operation` (named lazily: only when there is a span), the
 * child of the span bound to `signal`; plain when none is. Nothing below a store call makes
 * spans. An
 * exception ends the span with status ERROR and `error.type` (its class name only: a message may
 * quote the data), unless `expected` says the caller branches on it (a duplicate key): then
 * `error.type` only, status unset, as a refused RPC leaves a server span. Without a span, `work`'s
 * own promise: no wrapper, no extra turn of the event loop.
 */
export function inDatabaseSpan<T>(
  tracer: Tracer,
  database: DatabaseIdentity,
  operation: () => DatabaseOperation,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
  expected: (error: unknown) => boolean = () => false,
): Promise<T> {
  const parent = traceContextOf(signal);
  if (trace.getSpan(parent) === undefined || sampledOut(parent)) return work();
  return inSpan(tracer, database, operation(), parent, work, expected);
}

async function inSpan<T>(
  tracer: Tracer,
  database: DatabaseIdentity,
  named: DatabaseOperation,
  parent: Context,
  work: () => Promise<T>,
  expected: (error: unknown) => boolean,
): Promise<T> {
  const span = tracer.startSpan(
    named.collection === undefined ? named.name : `${named.name} ${named.collection}`,
    { kind: SpanKind.CLIENT, attributes: databaseAttributes(database, named) },
    parent,
  );
  try {
    return await work();
  } catch (error) {
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.name : "unknown");
    if (!expected(error)) span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

function databaseAttributes(database: DatabaseIdentity, operation: DatabaseOperation): Attributes {
  return {
    [ATTR_DB_SYSTEM_NAME]: database.system,
    [ATTR_DB_NAMESPACE]: database.namespace,
    ...(operation.collection === undefined ? {} : { [ATTR_DB_COLLECTION_NAME]: operation.collection }),
    [ATTR_DB_OPERATION_NAME]: operation.name,
    ...(database.server === undefined
      ? {}
      : { [ATTR_SERVER_ADDRESS]: database.server.address, [ATTR_SERVER_PORT]: database.server.port }),
  };
}
