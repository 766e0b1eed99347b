import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { createMongoStoreProvider } from "@commerce/runtime/store/mongo-store.js";
import { startServiceHarness } from "@commerce/runtime/testing/service-harness.js";
import { describeStockRaces } from "./inventory.contract.js";
import { buildProductService } from "./server.js";

/**
 * The stock races with the Product service writing to the server in MONGODB_URL (FerretDB in
 * `npm test`, whose conditional updates are not atomic: the case the ledger exists for). Fails
 * without MONGODB_URL, like the adapter's own suite: a race suite that silently did not run
 * would read as one that holds.
 */
function mongoUrl(): string {
  const url = process.env["MONGODB_URL"];
  if (url === undefined || url === "") {
    throw new Error(
      'MONGODB_URL is not set. Start FerretDB with `eval "$(npm run -s infra:up)"` and run ' +
        "`MONGODB_URL=$MONGODB_URL npx mocha services/product/src/inventory-on-mongo.spec.ts`.",
    );
  }
  return url;
}

describeStockRaces("MongoDB adapter", async () => {
  const url = mongoUrl();
  const database = `product_races_${randomBytes(6).toString("hex")}`;
  const provider = createMongoStoreProvider({ url });
  const store = await provider.open(database);
  const harness = await startServiceHarness((ctx) => buildProductService({ ...ctx, store }));
  return {
    harness,
    store,
    async close() {
      await harness.close();
      await provider.close();
      const client = new MongoClient(url);
      try {
        await client.db(database).dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
});
