import { expect } from "chai";
import { migrateAnalyticsStore, nextSumVersion, type AnalyticsStore } from "@commerce/runtime/analytics";
import { createLogger } from "@commerce/runtime/logging";
import { analyticsStoreBackends, type TestAnalyticsStore } from "@commerce/runtime/testing";
import { createRankingsReplica } from "./rankings-replica.js";
import { purchasesList } from "./rankings.js";
import { recommendationMigrations, recommendationVersionTable } from "./recommendation-schema.js";

const silent = createLogger("silent", "rankings-replica-spec");

describe("a process's copy of the rankings", () => {
  for (const backend of analyticsStoreBackends("services/recommendation/src/rankings-replica.spec.ts")) {
    describe(`on ${backend.name}`, function () {
      this.timeout(60_000);
      let subject: TestAnalyticsStore;
      let store: AnalyticsStore;

      beforeEach(async () => {
        subject = await backend.open();
        store = subject.store;
        await migrateAnalyticsStore(store, recommendationMigrations, recommendationVersionTable);
      });

      afterEach(async () => {
        await store.close();
        await subject.cleanup();
      });

      const ranking = (subject: string, ids: readonly string[], version: number, category = "") => ({
        list: "also",
        subject,
        ranked: JSON.stringify(ids.map((id, n) => [id, 10 - n])),
        category,
        version,
      });

      it("takes a ranking that lands after a later-stamped one, and never goes back to an older version", async () => {
        const replica = createRankingsReplica(store, { logger: silent });
        const earlier = nextSumVersion();
        const later = nextSumVersion();
        await store.insert("recommendation_rankings", [ranking("a", ["b"], later, "books")]);
        await replica.refresh();
        expect(replica.get("also", "a")).to.deep.equal({ ranked: [["b", 10]], category: "books" });
        expect(replica.get("also", "c")).to.equal(undefined);
        // Stamped before the one already taken, landed after it: another key, still taken.
        await store.insert("recommendation_rankings", [ranking("c", ["d", "e"], earlier)]);
        // An older version of a key already held: not taken.
        await store.insert("recommendation_rankings", [ranking("a", ["x"], earlier)]);
        await replica.refresh();
        expect(replica.get("also", "c")?.ranked).to.deep.equal([
          ["d", 10],
          ["e", 9],
        ]);
        expect(replica.get("also", "a")?.ranked).to.deep.equal([["b", 10]]);
        await store.insert("recommendation_rankings", [ranking("a", ["y"], nextSumVersion())]);
        await replica.refresh();
        expect(replica.get("also", "a")?.ranked).to.deep.equal([["y", 10]]);
      });

      it("loads every ranking at start, however old its stamp", async () => {
        await store.insert("recommendation_rankings", [ranking("old", ["p"], 1)]);
        const replica = createRankingsReplica(store, { logger: silent });
        await replica.start();
        await replica.stop();
        expect(replica.get("also", "old")?.ranked).to.deep.equal([["p", 10]]);
      });

      const purchases = (customer: string, ids: readonly string[], version: number) => ({
        list: purchasesList,
        subject: customer,
        ranked: JSON.stringify(ids.map((id) => [id, 1])),
        category: "",
        version,
      });

      it("holds the customers stamped last or asked about, keeps them up to date, and reads one it does not hold once, by key", async () => {
        let statements = 0;
        const counted: AnalyticsStore = {
          ...store,
          query: (statement, signal) => {
            statements += 1;
            return store.query(statement, signal);
          },
        };
        await store.insert("recommendation_rankings", [
          purchases("ann@x.test", ["a"], nextSumVersion()),
          purchases("ben@x.test", ["b", "c"], nextSumVersion()),
          purchases("cat@x.test", ["c"], nextSumVersion()),
        ]);
        const replica = createRankingsReplica(counted, { logger: silent, customersHeld: 2 });
        await replica.start();
        await replica.stop();
        // The two stamped last are held: no statement.
        statements = 0;
        expect(await replica.purchases("cat@x.test")).to.deep.equal(["c"]);
        expect(await replica.purchases("ben@x.test")).to.deep.equal(["b", "c"]);
        expect(statements).to.equal(0);
        // ann is read by key, once, and held in place of cat, the one asked about longest ago.
        expect(await replica.purchases("ann@x.test")).to.deep.equal(["a"]);
        expect(await replica.purchases("ann@x.test")).to.deep.equal(["a"]);
        expect(statements).to.equal(1);
        expect(await replica.purchases("ben@x.test")).to.deep.equal(["b", "c"]);
        expect(statements).to.equal(1);
        expect(await replica.purchases("cat@x.test")).to.deep.equal(["c"]);
        expect(statements).to.equal(2);
        // A poll keeps those held up to date and takes no other customer.
        await store.insert("recommendation_rankings", [
          purchases("cat@x.test", ["c", "d"], nextSumVersion()),
          purchases("dan@x.test", ["d"], nextSumVersion()),
        ]);
        await replica.refresh();
        statements = 0;
        expect(await replica.purchases("cat@x.test")).to.deep.equal(["c", "d"]);
        expect(statements).to.equal(0);
        expect(await replica.purchases("dan@x.test")).to.deep.equal(["d"]);
        expect(statements).to.equal(1);
      });

      it("holds a customer with nothing bought until a list is stamped for them", async () => {
        const replica = createRankingsReplica(store, { logger: silent });
        expect(await replica.purchases("new@x.test")).to.deep.equal([]);
        await store.insert("recommendation_rankings", [
          purchases("new@x.test", ["a", "b"], nextSumVersion()),
        ]);
        expect(await replica.purchases("new@x.test")).to.deep.equal([]);
        await replica.refresh();
        expect(await replica.purchases("new@x.test")).to.deep.equal(["a", "b"]);
      });
    });
  }
});
