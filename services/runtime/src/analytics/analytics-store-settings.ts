/**
 * Which analytics store a process opens (docs/configuration.md): a ClickHouse server when
 * CLICKHOUSE_URL is set, otherwise chDB in a folder under DATA_DIR, the same way MONGODB_URL and
 * KAFKA_BROKERS select their real adapters over the embedded ones (ADR 0019).
 *
 * The URL's path names the database (`http://clickhouse:8123/shop_analytics`); without one it
 * is `commerce_analytics`, beside the services' `commerce_<name>` document databases. The
 * database is created when missing, so a fresh server needs nothing done by hand.
 *
 * chDB is imported only when chosen: its library is about half a gigabyte, which a process on
 * ClickHouse never loads, and which the services' container images leave out
 * (ADR 0080).
 */
import { join } from "node:path";
import type { EnvReader } from "../config/env-reader.js";
import { declareSettings } from "../config/setting.js";
import type { AnalyticsStore } from "./analytics-store.js";
import { createClickHouseAnalyticsStore } from "./clickhouse-analytics-store.js";
import { identifier, sql } from "./sql.js";

export interface AnalyticsStoreSettings {
  /** A ClickHouse server: its HTTP interface, without a path. */
  readonly clickHouse: { readonly url: string; readonly database: string } | undefined;
  /** chDB's data folder, used when no server is given. */
  readonly chdbDir: string;
}

const defaultDatabase = "commerce_analytics";

export const analyticsStoreSettings = declareSettings({
  CLICKHOUSE_URL: {
    whenUnset: "embedded (chDB)",
    meaning: `Use ClickHouse: \`http://host:8123[/database]\` (database \`${defaultDatabase}\` by default)`,
    readBy: ["embedded", "analytics", "analytics-processor", "recommendation", "analytics-rebuild"],
  },
});

const databaseName = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Reads CLICKHOUSE_URL; `dataDir` is the process's DATA_DIR. */
export function readAnalyticsStoreSettings(env: EnvReader, dataDir: string): AnalyticsStoreSettings {
  const chdbDir = join(dataDir, "analytics");
  const raw = env.url(analyticsStoreSettings.CLICKHOUSE_URL, ["http:", "https:"]);
  if (raw === undefined) return { clickHouse: undefined, chdbDir };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { clickHouse: undefined, chdbDir }; // `env.url` recorded the problem
  }
  const path = url.pathname.replace(/^\/|\/$/g, "");
  if (path !== "" && !databaseName.test(path)) {
    env.problem(
      `CLICKHOUSE_URL's path must be a database name (letters, digits, underscores), got "/${path}"`,
    );
  }
  if (url.search !== "" || url.hash !== "") {
    env.problem("CLICKHOUSE_URL must have no query or fragment: settings are the platform's");
  }
  url.pathname = "";
  return {
    clickHouse: { url: url.toString().replace(/\/$/, ""), database: path === "" ? defaultDatabase : path },
    chdbDir,
  };
}

/** Opens the selected store; throws `AnalyticsStoreError` when it cannot be reached or opened. */
export async function openAnalyticsStore(settings: AnalyticsStoreSettings): Promise<AnalyticsStore> {
  const server = settings.clickHouse;
  if (server === undefined) {
    const chdb = await import("./chdb-analytics-store.js").catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") throw error;
      throw new Error(
        "chDB, the embedded analytics store, is not installed here (a service image): set CLICKHOUSE_URL",
        {
          cause: error,
        },
      );
    });
    return chdb.openChdbAnalyticsStore({ dataDir: settings.chdbDir });
  }
  const admin = createClickHouseAnalyticsStore({ url: server.url });
  try {
    await admin.command(sql`CREATE DATABASE IF NOT EXISTS ${identifier(server.database)}`);
  } finally {
    await admin.close();
  }
  return createClickHouseAnalyticsStore({ url: server.url, database: server.database });
}
