import { expect } from "chai";
import { buildAuthService } from "@commerce/auth";
import { migrateAnalyticsStore, sql, type AnalyticsStore } from "@commerce/runtime/analytics";
import {
  analyticsStoreBackends,
  registerAccount,
  startServiceHarness,
  type ServiceHarness,
  type TestAnalyticsStore,
} from "@commerce/runtime/testing";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { purchaseOwnersMigration } from "./purchase-owners.js";
import { storedPurchases } from "./testing/stored-purchases.js";
import { recommendationMigrations, recommendationVersionTable } from "./recommendation-schema.js";

const ttlSeconds = 120;
const key = new TextEncoder().encode("r".repeat(64));

describe("Recommendation service: purchases recorded by email, keyed again by account", () => {
  for (const backend of analyticsStoreBackends("services/recommendation/src/purchase-owners.spec.ts")) {
    describe(`on ${backend.name}`, function () {
      this.timeout(60_000);
      let subject: TestAnalyticsStore;
      let store: AnalyticsStore;
      let auth: ServiceHarness;
      const ids = { first: 0, later: 0, ben: 0 };

      /** An order's lines as the release before customers by account wrote them: keyed by email. */
      async function writeByEmail(
        email: string,
        orderId: string,
        products: readonly string[],
        placedAt: Date,
        cancelled = false,
      ): Promise<void> {
        const line = (product: string, version: number) => ({
          customer: email,
          order_id: orderId,
          product_id: product,
          placed_at: placedAt,
          cancelled: version,
          version,
        });
        await store.insert(
          "recommendation_order_lines",
          products.flatMap((product) =>
            cancelled ? [line(product, 0), line(product, 1)] : [line(product, 0)],
          ),
        );
      }

      beforeEach(async () => {
        subject = await backend.open();
        store = subject.store;
        await migrateAnalyticsStore(store, recommendationMigrations, recommendationVersionTable);
        auth = await startServiceHarness((ctx) =>
          buildAuthService(ctx, { jwtKey: key, jwtTtlSeconds: ttlSeconds }),
        );
        ids.first = await registerAccount(auth, "ann@x.test");
        const whenFirst = new Date();
        await auth.peerClient(AccountService).deleteAccount({ userId: ids.first });
        ids.later = await registerAccount(auth, "ann@x.test");
        ids.ben = await registerAccount(auth, "ben@x.test");
        const muchLater = new Date(Date.now() + ttlSeconds * 1_000 + 3 * 60_000);
        await writeByEmail("ann@x.test", "o1", ["a", "b"], whenFirst);
        await writeByEmail("ann@x.test", "o2", ["c"], muchLater);
        await writeByEmail("ben@x.test", "o3", ["d"], whenFirst);
        await writeByEmail("ben@x.test", "o4", ["e"], whenFirst, true);
      });

      afterEach(async () => {
        await auth.close();
        await store.close();
        await subject.cleanup();
      });

      it("gives each order the account that held its email when it was placed, never the email's later one", async () => {
        const migration = purchaseOwnersMigration(store, auth.peerClient(AccountService));
        const signal = new AbortController().signal;
        await migration.run(signal);
        const afterOnce = await storedPurchases(store);
        expect(afterOnce).to.deep.equal({
          [String(ids.later)]: JSON.stringify([["c", 1]]),
          [String(ids.ben)]: JSON.stringify([["d", 1]]),
        });
        // Run again (a holder killed half-way, say): the same rows, the same lists.
        await migration.run(signal);
        expect(await storedPurchases(store)).to.deep.equal(afterOnce);
        const [lines] = await store.query<{ rows: string }>(
          sql`SELECT count() AS rows FROM recommendation_order_lines FINAL WHERE customer = ${String(ids.ben)}`,
        );
        // o3's line and o4's, cancelled: a later cancellation's copy under the account is there too.
        expect(Number(lines?.rows)).to.equal(2);
      });
    });
  }
});
