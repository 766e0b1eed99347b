/**
 * The analytics store in process: chDB (ClickHouse 26 as a library, npm `chdb` with its prebuilt
 * `@chdb/lib-linux-x64-gnu`), for embedded mode, with its data in a folder (under `DATA_DIR`) so
 * it survives a restart. The same SQL as on a ClickHouse server (ADR 0019).
 *
 * chDB serves one data directory per process: opening a second folder while a store on another
 * is open fails ("only one active data directory per process"). Stores opened on the same folder
 * share the engine, and closing one leaves the others working, so the stream processor and the
 * Analytics service of the embedded platform may each open their own.
 *
 * Engine settings, given when the session opens, so that chDB 26 behaves like ClickHouse 18.16
 * wherever their defaults differ (ADR 0054):
 *   - `session_timezone=UTC`: functions without a zone (`now()`, `today()`) work in UTC,
 *     whatever the machine's zone (our server runs with `timezone` UTC);
 *   - `input_format_skip_unknown_fields=0`: an insert naming a column the table lacks fails,
 *     as on 18.16, instead of dropping the value silently;
 *   - `input_format_defaults_for_omitted_fields=0`: a column an insert omits gets its type's
 *     zero, as on 18.16, not its DEFAULT expression: code that forgets a column fails the
 *     contract suite here as it would on a server;
 *   - `output_format_json_quote_64bit_integers=1`: Int64 and UInt64 as strings, as on 18.16.
 */
import { mkdirSync } from "node:fs";
import { Session } from "chdb";
import type { AnalyticsStore } from "./analytics-store.js";
import { AnalyticsStoreError } from "./analytics-store-error.js";
import { storeOnEngine, type AnalyticsEngine } from "./engine-store.js";

export interface ChdbAnalyticsStoreOptions {
  /** The engine's data folder; created if missing. */
  readonly dataDir: string;
}

const engineSettings = [
  "--session_timezone=UTC",
  "--input_format_skip_unknown_fields=0",
  "--input_format_defaults_for_omitted_fields=0",
  "--output_format_json_quote_64bit_integers=1",
];

/**
 * chDB is ClickHouse in process: its spans say `clickhouse`, in its `default` database, with no
 * server (ADR 0064).
 */
const chdbIdentity = { system: "clickhouse", namespace: "default" } as const;

/** Opens the store on `dataDir`; throws `AnalyticsStoreError` if chDB cannot open it. */
export function openChdbAnalyticsStore(options: ChdbAnalyticsStoreOptions): AnalyticsStore {
  let session: Session;
  try {
    mkdirSync(options.dataDir, { recursive: true });
    session = new Session(options.dataDir, { connectionArgs: engineSettings });
  } catch (error) {
    throw new AnalyticsStoreError("open", error);
  }
  const engine: AnalyticsEngine = {
    async command(text) {
      await session.queryAsync(text, { format: "TabSeparated" });
    },
    async insert(table, jsonEachRow) {
      await session.insert({ table, values: Buffer.from(jsonEachRow), format: "JSONEachRow" });
    },
    async query<T>(text: string) {
      const output = (await session.queryAsync(text, { format: "JSONEachRow" })).text();
      return output
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as T);
    },
    async ping() {
      await session.queryAsync("SELECT 1", { format: "TabSeparated" });
      return true;
    },
    close() {
      session.close();
      return Promise.resolve();
    },
  };
  return storeOnEngine(engine, chdbIdentity);
}
