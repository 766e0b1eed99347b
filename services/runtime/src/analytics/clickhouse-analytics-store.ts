/**
 * The analytics store on a ClickHouse server, through `@clickhouse/client` over HTTP (real mode:
 * `CLICKHOUSE_URL`). Tested against Debian's ClickHouse 18.16, the oldest server we meet; what
 * the client needed there (ADR 0054):
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
import type { AnalyticsStore } from "./analytics-store.js";
import { storeOnEngine, type AnalyticsEngine } from "./engine-store.js";
import { identifier } from "./sql.js";

export interface ClickHouseAnalyticsStoreOptions {
  /** `http://host:8123`: the server's HTTP interface. */
  readonly url: string;
  /** The database every statement runs in (it must exist); default "default". */
  readonly database?: string;
  /** Per request; default 30 s. */
  readonly requestTimeoutMs?: number;
}

export function createClickHouseAnalyticsStore(options: ClickHouseAnalyticsStoreOptions): AnalyticsStore {
  const database = options.database ?? "default";
  const client: ClickHouseClient = createClient({
    url: options.url,
    database,
    request_timeout: options.requestTimeoutMs ?? 30_000,
    compression: { request: false, response: false },
    clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
    log: { level: ClickHouseLogLevel.OFF },
  });
  const engine: AnalyticsEngine = {
    async command(text) {
      await client.command({ query: text });
    },
    async insert(table, jsonEachRow) {
      // `exec` sends our JSONEachRow text as it is (`insert` would JSON-encode it again).
      const result = await client.exec({
        query: `INSERT INTO ${identifier(table).text} FORMAT JSONEachRow`,
        values: Readable.from([jsonEachRow], { objectMode: false }),
      });
      await finished(result.stream.resume());
    },
    async query<T>(text: string) {
      const result = await client.query({ query: text, format: "JSONEachRow" });
      return result.json<T>();
    },
    async ping() {
      return (await client.ping()).success;
    },
    close: () => client.close(),
  };
  return storeOnEngine(engine, { system: "clickhouse", namespace: database, server: serverOf(options.url) });
}

/** The server the URL names; its port, when the URL leaves it out, is the scheme's. */
function serverOf(url: string): { address: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port);
  // An IPv6 host comes bracketed; the conventions' address is the bare one.
  return { address: parsed.hostname.replace(/^\[|\]$/g, ""), port };
}
