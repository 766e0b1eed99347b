/**
 * Test support: the analytics-store backends a suite runs on. chDB always, in a temporary folder;
 * the ClickHouse adapter on a fresh database of the server in CLICKHOUSE_URL (ClickHouse 18.16 in
 * `npm test`), which a suite requires rather than skips: a suite that silently did not run on the
 * server would read as one that holds there.
 *
 * chDB serves one folder per process, so a suite closes its chDB store before it opens the next.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnalyticsStore } from "../analytics/analytics-store.js";
import { openChdbAnalyticsStore } from "../analytics/chdb-analytics-store.js";
import { createClickHouseAnalyticsStore } from "../analytics/clickhouse-analytics-store.js";
import { identifier, sql } from "../analytics/sql.js";

export interface TestAnalyticsStore {
  readonly store: AnalyticsStore;
  /** Another store on the same data, as a second process would open it. */
  openAnother(): Promise<AnalyticsStore>;
  /** Removes the data; call after every store on it was closed. */
  cleanup(): Promise<void>;
}

export interface TestAnalyticsStoreBackend {
  readonly name: string;
  /** A fresh, empty store. */
  open(): Promise<TestAnalyticsStore>;
}

/** CLICKHOUSE_URL, or an error that says how to run `spec` with a local ClickHouse. */
export function requiredClickHouseUrl(spec: string): string {
  const url = process.env["CLICKHOUSE_URL"];
  if (url === undefined || url === "") {
    throw new Error(
      'CLICKHOUSE_URL is not set. Start ClickHouse with `eval "$(npm run -s infra:up)"` and run ' +
        `\`CLICKHOUSE_URL=$CLICKHOUSE_URL npx mocha ${spec}\`.`,
    );
  }
  return url;
}

export const chdbTestBackend: TestAnalyticsStoreBackend = {
  name: "chDB",
  async open() {
    const dataDir = await mkdtemp(join(tmpdir(), "analytics-chdb-"));
    return {
      store: openChdbAnalyticsStore({ dataDir }),
      openAnother: () => Promise.resolve(openChdbAnalyticsStore({ dataDir })),
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
};

/** The ClickHouse adapter on a database of its own, dropped by `cleanup`. */
export function clickHouseTestBackend(spec: string): TestAnalyticsStoreBackend {
  return {
    name: "ClickHouse",
    async open() {
      const url = requiredClickHouseUrl(spec);
      const database = `test_${randomBytes(6).toString("hex")}`;
      const admin = createClickHouseAnalyticsStore({ url });
      await admin.command(sql`CREATE DATABASE ${identifier(database)}`);
      return {
        store: createClickHouseAnalyticsStore({ url, database }),
        openAnother: () => Promise.resolve(createClickHouseAnalyticsStore({ url, database })),
        async cleanup() {
          try {
            await admin.command(sql`DROP DATABASE IF EXISTS ${identifier(database)}`);
          } finally {
            await admin.close();
          }
        },
      };
    },
  };
}

export function analyticsStoreBackends(spec: string): readonly TestAnalyticsStoreBackend[] {
  return [chdbTestBackend, clickHouseTestBackend(spec)];
}
