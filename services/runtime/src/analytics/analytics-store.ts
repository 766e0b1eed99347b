/**
 * The analytics-store port: the columnar store the stream processor writes and the Analytics
 * service reads (ADR 0019: one port, one contract suite, every adapter). Two
 * adapters: ClickHouse over HTTP (`createClickHouseAnalyticsStore`, real mode) and chDB in
 * process (`openChdbAnalyticsStore`, embedded mode). Both run the same SQL: the subset that
 * ClickHouse 18.16 and chDB 26 share, which the contract suite pins down
 * (analytics-store.contract.ts; what differs is in ADR 0054).
 *
 * Statements are `Sql` values from the `sql` tag, never strings: values reach SQL only through
 * its quoting. Every failure of the store (refused SQL, server down, a closed store) is an
 * `AnalyticsStoreError`, which keeps the store's own message for the log and never shows it to
 * a client.
 */
import type { DatabaseIdentity } from "../store/database-identity.js";
import type { Sql, SqlValue } from "./sql.js";

/** One row to insert: column name to value (see `encodeJsonEachRow` for how each is written). */
export type AnalyticsRow = Readonly<Record<string, SqlValue>>;

/**
 * A row as a query returns it, in ClickHouse's JSON: Int64 and UInt64 (counts, `sum` of
 * integers, `uniqExact`) arrive as decimal strings, so they stay exact; 8- to 32-bit integers
 * and floats as numbers; Date as `YYYY-MM-DD`, DateTime as `YYYY-MM-DD hh:mm:ss` (in the
 * column's zone: UTC for ours); Nullable as null. The caller states the shape it expects.
 */
export type ResultRow = Readonly<Record<string, unknown>>;

export interface AnalyticsStore {
  /** Which database this is, for its spans (telemetry/analytics-spans.ts). */
  readonly identity: DatabaseIdentity;
  /**
   * Runs a statement that returns no rows: DDL, `INSERT … VALUES`, `OPTIMIZE`. In every method,
   * `signal` is the call the statement belongs to: it names the trace its span joins
   * (telemetry/analytics-spans.ts); a statement already sent is not cancelled by it.
   */
  command(statement: Sql, signal?: AbortSignal): Promise<void>;
  /**
   * Inserts the rows into `table` (a plain name, in the store's database) as one JSONEachRow
   * insert: one request, one block, so a ReplacingMergeTree sees them together. Every column
   * should be given: ClickHouse 18.16 fills an omitted column with its type's zero, not with its
   * DEFAULT expression (the adapters make chDB do the same). Unknown columns are refused. An
   * empty list sends nothing.
   */
  insert(table: string, rows: readonly AnalyticsRow[], signal?: AbortSignal): Promise<void>;
  /** Runs a SELECT and returns its rows (see `ResultRow`). */
  query<T extends ResultRow = ResultRow>(statement: Sql, signal?: AbortSignal): Promise<T[]>;
  /** True when the store answers a trivial query now; never throws (for readiness). */
  ping(): Promise<boolean>;
  /** Releases connections; later calls fail with `AnalyticsStoreError`. Idempotent. */
  close(): Promise<void>;
}
