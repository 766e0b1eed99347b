import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chdbTestBackend } from "../testing/test-analytics-stores.js";
import { describeAnalyticsStoreContract } from "./analytics-store.contract.js";
import { AnalyticsStoreError } from "./analytics-store-error.js";
import { openChdbAnalyticsStore } from "./chdb-analytics-store.js";
import { sql } from "./sql.js";

describeAnalyticsStoreContract(chdbTestBackend);

describe("openChdbAnalyticsStore", () => {
  const dirs: string[] = [];
  const freshDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), "chdb-store-"));
    dirs.push(dir);
    return dir;
  };

  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("keeps its tables and rows in the folder across a close and a reopen", async () => {
    const dataDir = await freshDir();
    const first = openChdbAnalyticsStore({ dataDir });
    await first.command(sql`CREATE TABLE kept (id String) ENGINE = MergeTree() ORDER BY id`);
    await first.insert("kept", [{ id: "a" }, { id: "b" }]);
    await first.close();

    const second = openChdbAnalyticsStore({ dataDir });
    expect(await second.query(sql`SELECT id FROM kept ORDER BY id`)).to.deep.equal([
      { id: "a" },
      { id: "b" },
    ]);
    await second.close();
  });

  it("serves one folder per process: another folder opens only once the first is closed", async () => {
    const [a, b] = [await freshDir(), await freshDir()];
    const first = openChdbAnalyticsStore({ dataDir: a });
    const sameFolder = openChdbAnalyticsStore({ dataDir: a });
    expect(() => openChdbAnalyticsStore({ dataDir: b }))
      .to.throw(AnalyticsStoreError)
      .with.property("operation", "open");
    // Closing one of two stores on a folder leaves the other working.
    await sameFolder.close();
    expect(await first.query(sql`SELECT 1 AS one`)).to.deep.equal([{ one: 1 }]);
    await first.close();

    const other = openChdbAnalyticsStore({ dataDir: b });
    expect(await other.ping()).to.equal(true);
    await other.close();
  });
});
