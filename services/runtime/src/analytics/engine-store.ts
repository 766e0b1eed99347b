/**
 * What every analytics-store adapter does the same way, once: a closed store refuses calls,
 * every failure becomes an `AnalyticsStoreError`, table names are plain, an empty insert sends
 * nothing, rows are encoded as JSONEachRow, `ping` never throws, `close` is idempotent. An
 * adapter (ClickHouse over HTTP, chDB in process) only talks to its engine.
 */
import type { DatabaseIdentity } from "../store/database-identity.js";
import type { AnalyticsRow, AnalyticsStore, ResultRow } from "./analytics-store.js";
import { AnalyticsStoreError, type AnalyticsOperation } from "./analytics-store-error.js";
import { encodeJsonEachRow } from "./json-each-row.js";
import { plainIdentifier, type Sql } from "./sql.js";

/** One engine's raw operations; any of them may throw anything. */
export interface AnalyticsEngine {
  command(text: string): Promise<void>;
  /** Inserts `jsonEachRow` (one row per line) into plain-named `table`. */
  insert(table: string, jsonEachRow: string): Promise<void>;
  query<T extends ResultRow>(text: string): Promise<T[]>;
  /** True when the engine answers now. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function storeOnEngine(engine: AnalyticsEngine, identity: DatabaseIdentity): AnalyticsStore {
  let closed = false;

  async function attempt<T>(operation: AnalyticsOperation, work: () => Promise<T>): Promise<T> {
    if (closed) throw new AnalyticsStoreError(operation, new Error("the analytics store is closed"));
    try {
      return await work();
    } catch (error) {
      throw new AnalyticsStoreError(operation, error);
    }
  }

  return {
    identity,
    command: (statement: Sql) => attempt("command", () => engine.command(statement.text)),

    async insert(table: string, rows: readonly AnalyticsRow[]) {
      const target = plainIdentifier(table);
      if (rows.length === 0) return;
      const payload = encodeJsonEachRow(rows);
      await attempt("insert", () => engine.insert(target, payload));
    },

    query: <T extends ResultRow>(statement: Sql) => attempt("query", () => engine.query<T>(statement.text)),

    async ping() {
      if (closed) return false;
      try {
        return await engine.ping();
      } catch {
        return false;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await engine.close();
    },
  };
}
