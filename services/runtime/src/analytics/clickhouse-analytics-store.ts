/**
 * The analytics store on a ClickHouse server, through `@clickhouse/client` over HTTP (real mode:
 * `CLICKHOUSE_URL`). Tested against Debian's ClickHouse 18.16, the oldest server we meet; what
 * the client needed there (docs/decisions.md, "Analytics store"):
 *   - its logger off: on a failed request it prints the error, with the server's message and so
 *     the SQL, to the console by itself; our error (`AnalyticsStoreError`) carries it instead,
 *     to the caller's log only;
 *   - no response compression and no other setting 18.16 lacks (`enable_http_compression` it
 *     knows, but nothing gains from it on loopback); the client's defaults send none;
 *   - its error parser does not read 18.16's message format ("Code: 60, e.displayText() = …"),
 *     so errors arrive as plain `Error`s: `AnalyticsStoreError` reads the code itself;
 *   - `output_format_json_quote_64bit_integers=1` is set explicitly (the default on both
 *     engines, but the exactness of Int64 money must not rest on a default).
 */
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from "@clickhouse/client";
import type { AnalyticsRow, AnalyticsStore, ResultRow } from "./analytics-store.js";
import { AnalyticsStoreError, type AnalyticsOperation } from "./analytics-store-error.js";
import { encodeJsonEachRow } from "./json-each-row.js";
import { identifier, type Sql } from "./sql.js";

export interface ClickHouseAnalyticsStoreOptions {
  /** `http://host:8123`: the server's HTTP interface. */
  readonly url: string;
  /** The database every statement runs in (it must exist); default "default". */
  readonly database?: string;
  /** Per request; default 30 s. */
  readonly requestTimeoutMs?: number;
}

export function createClickHouseAnalyticsStore(options: ClickHouseAnalyticsStoreOptions): AnalyticsStore {
  const client: ClickHouseClient = createClient({
    url: options.url,
    database: options.database ?? "default",
    request_timeout: options.requestTimeoutMs ?? 30_000,
    compression: { request: false, response: false },
    clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
    log: { level: ClickHouseLogLevel.OFF },
  });
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
    command: (statement: Sql) =>
      attempt("command", async () => {
        await client.command({ query: statement.text });
      }),

    async insert(table: string, rows: readonly AnalyticsRow[]) {
      const target = identifier(table).text;
      if (rows.length === 0) return;
      const payload = encodeJsonEachRow(rows);
      await attempt("insert", async () => {
        // `exec` sends our JSONEachRow text as it is (`insert` would JSON-encode it again).
        const result = await client.exec({
          query: `INSERT INTO ${target} FORMAT JSONEachRow`,
          values: Readable.from([payload], { objectMode: false }),
        });
        await finished(result.stream.resume());
      });
    },

    query: <T extends ResultRow>(statement: Sql) =>
      attempt("query", async () => {
        const result = await client.query({ query: statement.text, format: "JSONEachRow" });
        return result.json<T>();
      }),

    async ping() {
      if (closed) return false;
      try {
        return (await client.ping()).success;
      } catch {
        return false;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}
