import { expect } from "chai";
import { migrateAnalyticsStore, sql, type AnalyticsStore } from "@commerce/runtime/analytics";
import type { BatchHandler, EventRecord } from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import { analyticsStoreBackends, type TestAnalyticsStore } from "@commerce/runtime/testing";
import { createCoPurchaseProcessor, maxPairedProducts } from "./co-purchase-processor.js";
import {
  accountDeleted,
  customerOf,
  delisted,
  listed,
  placed,
  statusUpdated,
  testUserId,
} from "./testing/purchase-events.js";
import { storedPurchases } from "./testing/stored-purchases.js";
import { createRankingsReplica, type RankingsReplica } from "./rankings-replica.js";
import { createRecommendationReads, type RecommendationReads } from "./recommendation-reads.js";
import { recommendationMigrations, recommendationVersionTable } from "./recommendation-schema.js";

/** `record`, as if it had happened at `time` (RFC 3339). */
const at = (record: EventRecord, time: string): EventRecord => ({ ...record, time });
const cancelled = (orderId: string, customer: string, customerUserId?: number): EventRecord =>
  statusUpdated(orderId, customer, "CANCELLED", customerUserId);
const confirmed = (orderId: string, customer: string): EventRecord =>
  statusUpdated(orderId, customer, "CONFIRMED");

/**
 * The scripted catalog and orders: a–d are fashion, e and f books; g is deleted after its
 * order, and o6 is cancelled.
 *
 *   o1 ann: a b c    o2 ben: a b    o3 cat: a c e    o4 dan: b d    o5 eve: a g    o6 ann: e f (cancelled)
 */
const catalogEvents = [
  ...["a", "b", "c", "d"].map((id) => listed(id, "fashion")),
  ...["e", "f"].map((id) => listed(id, "books")),
  listed("g", "toys"),
];
const orderEvents = [
  placed("o1", "Ann@x.test", ["a", "b", "c"]),
  placed("o2", "ben@x.test", ["b", "a", "a"]),
  placed("o3", "cat@x.test", ["a", "c", "e"]),
  placed("o4", "dan@x.test", ["b", "d"]),
  placed("o5", "eve@x.test", ["a", "g"]),
  confirmed("o1", "ann@x.test"),
  placed("o6", "ann@x.test", ["e", "f"]),
];

const silent = createLogger("silent", "co-purchases-spec");

describe("co-purchase recommendations", () => {
  for (const backend of analyticsStoreBackends("services/recommendation/src/co-purchases.spec.ts")) {
    describe(`on ${backend.name}`, function () {
      this.timeout(60_000);
      let subject: TestAnalyticsStore;
      let store: AnalyticsStore;
      let process: BatchHandler;
      let reads: RecommendationReads;
      const signal = new AbortController().signal;
      let rankings: RankingsReplica;
      /** Hands the records to the handler as one batch, then takes the rankings it changed. */
      const handle = async (records: readonly EventRecord[]): Promise<void> => {
        await process({ topic: "t", partition: 0, records }, signal);
        await rankings.refresh();
      };

      beforeEach(async () => {
        subject = await backend.open();
        store = subject.store;
        await migrateAnalyticsStore(store, recommendationMigrations, recommendationVersionTable);
        process = createCoPurchaseProcessor(store);
        rankings = createRankingsReplica(store, { logger: silent });
        reads = createRecommendationReads(rankings);
      });

      afterEach(async () => {
        await store.close();
        await subject.cleanup();
      });

      /** Everything the scripted events say, in three batches, o6 cancelled in the last. */
      async function script(): Promise<void> {
        await handle(catalogEvents);
        await handle(orderEvents);
        await handle([delisted("g"), cancelled("o6", "ann@x.test")]);
      }

      it("ranks what was bought with a product by orders not cancelled, then its category's and the overall best sellers", async () => {
        await script();
        expect(await reads.alsoBought("a", 4)).to.deep.equal(["b", "c", "e", "d"]);
        expect(await reads.alsoBought("a", 2)).to.deep.equal(["b", "c"]);
        // f's only order was cancelled: books' best seller e, then the overall ones.
        expect(await reads.alsoBought("f", 4)).to.deep.equal(["e", "a", "b", "c"]);
        // A product nobody bought and no event named: the overall best sellers.
        expect(await reads.alsoBought("unknown", 3)).to.deep.equal(["a", "b", "c"]);
      });

      it("recommends to a customer what was bought with their purchases, then best sellers to one without any", async () => {
        await script();
        // ann kept o1 (a b c); o6 was cancelled. e was bought with a once and with c once (o3),
        // d with b once (o4): the counts add up per product bought.
        expect(await reads.forCustomer(customerOf("ANN@x.test"), 4)).to.deep.equal(["e", "d"]);
        expect(await reads.forCustomer(customerOf("nobody@x.test"), 4)).to.deep.equal(["a", "b", "c", "d"]);
      });

      it("gives the same answers when every batch is delivered twice, and a cancellation with its placement", async () => {
        await handle(catalogEvents);
        await handle(catalogEvents);
        await handle([...orderEvents, delisted("g"), cancelled("o6", "ann@x.test")]);
        await handle([...orderEvents, delisted("g"), cancelled("o6", "ann@x.test")]);
        await handle([delisted("g"), cancelled("o6", "ann@x.test")]);
        expect(await reads.alsoBought("a", 4)).to.deep.equal(["b", "c", "e", "d"]);
        expect(await reads.alsoBought("f", 4)).to.deep.equal(["e", "a", "b", "c"]);
        expect(await reads.forCustomer(customerOf("ann@x.test"), 4)).to.deep.equal(["e", "d"]);
      });

      it("counts a cancelled order again nowhere: co-purchases and best sellers drop it", async () => {
        await script();
        await handle([cancelled("o1", "ann@x.test")]);
        // Left with a: b (o2), c (o3), e (o3); fashion sellers now a 3, b 2, c 1, d 1.
        expect(await reads.alsoBought("a", 4)).to.deep.equal(["b", "c", "e", "d"]);
        expect(await reads.alsoBought("c", 1)).to.deep.equal(["a"]);
        expect(await reads.forCustomer(customerOf("ann@x.test"), 2)).to.deep.equal(["a", "b"]);
      });

      it("never names a deleted product, and names a product once it is listed, even after its orders", async () => {
        await script();
        // g's one order gives a; g's listing is gone, so no category: the overall sellers.
        expect(await reads.alsoBought("g", 10)).to.deep.equal(["a", "b", "c", "d", "e"]);
        await handle([listed("h", "toys"), placed("o7", "fay@x.test", ["h", "a"])]);
        expect(await reads.alsoBought("a", 4)).to.deep.equal(["b", "c", "e", "h"]);
        // An order met before its product's listing (another topic): named once the listing comes.
        await handle([placed("o8", "gil@x.test", ["i", "b"])]);
        expect(await reads.alsoBought("b", 4)).to.deep.equal(["a", "c", "d", "e"]);
        await handle([listed("i", "toys")]);
        expect(await reads.alsoBought("b", 4)).to.deep.equal(["a", "c", "d", "i"]);
      });

      it("pairs nothing in an order of more than 50 products, and still counts each one sold", async () => {
        const bulk = Array.from(
          { length: maxPairedProducts + 1 },
          (_, i) => `bulk${String(i).padStart(2, "0")}`,
        );
        await handle([...bulk.map((id) => listed(id, "home")), listed("z", "home")]);
        await handle([placed("big", "gus@x.test", bulk), placed("small", "hal@x.test", ["bulk00", "z"])]);
        const [pairs] = await store.query<{ rows: string }>(
          sql`SELECT count() AS rows FROM recommendation_pairs`,
        );
        expect(Number(pairs?.rows)).to.equal(bulk.length + 4);
        // bulk00's only co-purchase is z; then home's best sellers: bulk00 sold twice, the rest once.
        expect(await reads.alsoBought("bulk00", 3)).to.deep.equal(["z", "bulk01", "bulk02"]);
      });

      it("never gives a later account of an email the earlier one's purchases, even one its old token placed after the deletion", async () => {
        const first = testUserId("ann@x.test");
        const later = 90_001;
        await handle(catalogEvents);
        await handle([at(placed("o1", "ann@x.test", ["a", "b"]), "2026-11-20T10:00:00.000Z")]);
        await handle([at(accountDeleted("ann@x.test"), "2026-11-20T12:00:00.000Z")]);
        // The deleted account's token, before its revocation arrived (or an Order clock ahead of
        // Auth's): an order after the deletion, by the old account. An email's epoch counted it
        // for the email's next account; the account's id never does.
        await handle([at(placed("o2", "ann@x.test", ["e"], first), "2026-11-20T12:00:05.000Z")]);
        await handle([at(placed("o3", "ann@x.test", ["c"], later), "2026-11-20T12:00:06.000Z")]);
        await handle([at(placed("o4", "ben@x.test", ["c", "d"]), "2026-11-20T12:00:07.000Z")]);
        expect(await reads.forCustomer(String(later), 1)).to.deep.equal(["d"]);
        const bought = await storedPurchases(store);
        expect(bought[String(later)]).to.equal(JSON.stringify([["c", 1]]));
        // The first account's purchases since its deletion stay its own.
        expect(bought[String(first)]).to.equal(JSON.stringify([["e", 1]]));
      });

      it("counts an order whose event names no account for what goes together, and for nobody's purchases", async () => {
        await handle(catalogEvents);
        await handle([placed("o1", "ann@x.test", ["a", "b"], 0), placed("o2", "ben@x.test", ["c"])]);
        expect(await reads.alsoBought("a", 1)).to.deep.equal(["b"]);
        expect(await reads.forCustomer(customerOf("ann@x.test"), 4)).to.deep.equal(["a", "b", "c"]);
        expect(await reads.forCustomer("", 2)).to.deep.equal(["a", "b"]);
        // Its cancellation, naming no account either, takes it back.
        await handle([cancelled("o1", "ann@x.test", 0)]);
        expect(await reads.alsoBought("a", 1)).to.deep.equal(["c"]);
      });

      it("fills every customer's purchases on upgrade from the first schema as the batches write them", async () => {
        await script();
        await handle([
          listed('q"\\1', "toys"),
          placed("o7", "ivy@x.test", ['q"\\1', "a"]),
          placed("o8", "ivy@x.test", ["a"]),
          at(placed("o9", "jon@x.test", ["b"]), "2026-11-20T10:00:00.000Z"),
          at(accountDeleted("jon@x.test"), "2026-11-20T12:00:00.000Z"),
        ]);
        const written = await storedPurchases(store);
        expect(written).to.deep.include({
          [customerOf("ann@x.test")]: JSON.stringify([
            ["a", 1],
            ["b", 1],
            ["c", 1],
          ]),
          [customerOf("ivy@x.test")]: JSON.stringify([
            ["a", 2],
            ['q"\\1', 1],
          ]),
        });
        expect(written).not.to.have.property(customerOf("jon@x.test"));
        await store.command(sql`TRUNCATE TABLE recommendation_rankings`);
        const upgrade = recommendationMigrations.find((migration) => migration.version === 2);
        for (const statement of upgrade?.statements ?? []) await store.command(statement);
        expect(await storedPurchases(store)).to.deep.equal(written);
      });
    });
  }
});
