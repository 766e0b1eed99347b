import { mongoTestStore, startServiceHarness } from "@commerce/runtime/testing";
import { describeStockRaces } from "./inventory.contract.js";
import { buildProductService } from "./product-module.js";

/**
 * The stock races with the Product service writing to the server in MONGODB_URL (FerretDB in
 * `npm test`, whose conditional updates are not atomic: the case the ledger exists for). Fails
 * without MONGODB_URL, like the adapter's own suite: a race suite that silently did not run
 * would read as one that holds.
 */
describeStockRaces("MongoDB adapter", async () => {
  const opened = await mongoTestStore("services/product/src/inventory-on-mongo.spec.ts").open();
  const store = opened.store;
  const harness = await startServiceHarness((ctx) => buildProductService({ ...ctx, store }));
  return {
    harness,
    store,
    async close() {
      await harness.close();
      await opened.close();
    },
  };
});
