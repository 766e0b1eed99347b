/**
 * The analytics store with a CLIENT span per statement (database-spans.ts), under the tracer of
 * the service that uses it: the stream processor's inserts and rollups under its batch's
 * CONSUMER span, the Analytics service's reads under its RPC's SERVER span. The store itself
 * when tracing is off.
 *
 * `insert(table, rows)` is `INSERT <table>`. A statement is named from its own text, never
 * quoting it: its first keyword is the operation (`INSERT`, `SELECT`, …), and its table is the
 * one an `INSERT INTO` writes or, for anything else, the first one a `FROM` reads, found once
 * the string literals (where values live) are taken out. `ping` stays untraced: readiness calls
 * it every few seconds, outside any request.
 */
import type { AnalyticsStore } from "../analytics/analytics-store.js";
import type { Sql } from "../analytics/sql.js";
import { inDatabaseSpan, type DatabaseOperation } from "./database-spans.js";
import type { ServiceTelemetry } from "./telemetry.js";

export function withAnalyticsSpans(store: AnalyticsStore, telemetry: ServiceTelemetry): AnalyticsStore {
  if (!telemetry.enabled) return store;
  const { tracer } = telemetry;
  const database = store.identity;
  /** `work` in the span of `statement`, named from its text only when there is a span. */
  const traced = <T>(statement: Sql, signal: AbortSignal | undefined, work: () => Promise<T>) =>
    inDatabaseSpan(tracer, database, () => statementOperation(statement), signal, work);
  return {
    identity: database,
    command: (statement, signal) => traced(statement, signal, () => store.command(statement, signal)),
    insert: (table, rows, signal) =>
      // An empty insert sends nothing: no span either.
      rows.length === 0
        ? store.insert(table, rows, signal)
        : inDatabaseSpan(
            tracer,
            database,
            () => ({ name: "INSERT", collection: table }),
            signal,
            () => store.insert(table, rows, signal),
          ),
    query: (statement, signal) => traced(statement, signal, () => store.query(statement, signal)),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

const stringLiterals = /'(?:[^'\\]|\\.)*'/gs;
const name = String.raw`\x60?([A-Za-z_][A-Za-z0-9_]*)\x60?`;
const firstKeyword = /^\s*([A-Za-z]+)/;
const insertTarget = new RegExp(String.raw`^\s*INSERT\s+INTO\s+${name}`, "i");
const firstSource = new RegExp(String.raw`\bFROM\s+${name}`, "i");

/** The operation and the table of `statement`, from its text without its literals. */
function statementOperation(statement: Sql): DatabaseOperation {
  const text = statement.text.replace(stringLiterals, "''");
  const operation = firstKeyword.exec(text)?.[1]?.toUpperCase() ?? "QUERY";
  const table = (operation === "INSERT" ? insertTarget : firstSource).exec(text)?.[1];
  return table === undefined ? { name: operation } : { name: operation, collection: table };
}
