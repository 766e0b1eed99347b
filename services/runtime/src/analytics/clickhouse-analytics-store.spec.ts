import { expect } from "chai";
import { freePort } from "../../../../scripts/infra/processes.js";
import { clickHouseTestBackend, requiredClickHouseUrl } from "../testing/test-analytics-stores.js";
import { describeAnalyticsStoreContract } from "./analytics-store.contract.js";
import { AnalyticsStoreError } from "./analytics-store-error.js";
import { createClickHouseAnalyticsStore } from "./clickhouse-analytics-store.js";
import { sql } from "./sql.js";

/**
 * Runs against the server in CLICKHOUSE_URL (`npm test` starts ClickHouse 18.16 for it; locally
 * `npm run infra:up`). Without it the run fails: a contract that silently did not run would read
 * as a contract that holds.
 */
const spec = "services/runtime/src/analytics/clickhouse-analytics-store.spec.ts";

describeAnalyticsStoreContract(clickHouseTestBackend(spec));

describe("createClickHouseAnalyticsStore", () => {
  it("fails with AnalyticsStoreError without a server code when nothing listens, and ping says false", async () => {
    const store = createClickHouseAnalyticsStore({ url: `http://127.0.0.1:${await freePort()}` });
    try {
      expect(await store.ping()).to.equal(false);
      const error = await store.query(sql`SELECT 1`).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).to.be.instanceOf(AnalyticsStoreError);
      expect((error as AnalyticsStoreError).serverCode).to.equal(undefined);
    } finally {
      await store.close();
    }
  });

  it("prints nothing itself when a statement fails: the SQL reaches only the caller's error", async () => {
    const store = createClickHouseAnalyticsStore({ url: requiredClickHouseUrl(spec) });
    const printed: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const writeOut = process.stdout.write.bind(process.stdout);
    const capture = (chunk: string | Uint8Array): boolean => {
      printed.push(String(chunk));
      return true;
    };
    process.stderr.write = capture;
    process.stdout.write = capture;
    try {
      await store.query(sql`SELECT 1 FROM table_that_is_not_there`).catch(() => undefined);
    } finally {
      process.stderr.write = write;
      process.stdout.write = writeOut;
      await store.close();
    }
    expect(printed.join("")).to.not.include("table_that_is_not_there");
  });
});
