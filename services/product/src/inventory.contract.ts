/**
 * The stock races, as one suite that runs over RPC against every document-store adapter
 * (inventory-service.spec.ts: embedded; inventory-on-mongo.spec.ts: MongoDB or FerretDB).
 * Whatever the backend, racing reservations must never take more than there is, and the
 * ledger must stay one unbroken chain: seq 1..n, each balance = previous balance + delta >= 0.
 */
import { expect } from "chai";
import type { DocumentStore } from "@commerce/runtime/store";
import type { ServiceHarness } from "@commerce/runtime/testing";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { openProductCollections, type StockEntryDocument } from "./product-store.js";

export const admin = { userId: 13, email: "root@x.test", role: "ADMIN" as const };

let counter = 0;

/** Creates an active product with `stock` (and `price`) and returns its id. */
export async function createTestProduct(
  harness: ServiceHarness,
  stock: number,
  price = 10,
  fields: { name?: string; brand?: string; categoryId?: string } = {},
): Promise<string> {
  counter += 1;
  const { ids } = await harness.client(ProductService, admin).bulkCreateProducts({
    products: [
      {
        name: fields.name ?? `Test product ${counter}`,
        description: "",
        price,
        stock,
        brand: fields.brand ?? "Acme",
        categoryId: fields.categoryId ?? "electronics",
      },
    ],
  });
  const [id] = ids;
  if (id === undefined) throw new Error("no id returned");
  return id;
}

/** The product's ledger in sequence order, checked to be one unbroken, never negative chain. */
export async function checkedLedger(store: DocumentStore, productId: string): Promise<StockEntryDocument[]> {
  const { stockEntries } = await openProductCollections(store);
  const entries = await stockEntries.find({ productId }, { sort: [{ field: "seq", direction: 1 }] });
  let balance = 0;
  for (const [i, entry] of entries.entries()) {
    expect(entry.seq, "sequence without gaps").to.equal(i + 1);
    expect(entry.balance, `balance of seq ${entry.seq}`).to.equal(balance + entry.delta);
    expect(entry.balance, `balance of seq ${entry.seq}`).to.be.at.least(0);
    balance = entry.balance;
  }
  return entries;
}

export async function stockOf(harness: ServiceHarness, productId: string): Promise<number> {
  const { products } = await harness
    .peerClient(InventoryService)
    .getProductsForOrder({ productIds: [productId] });
  return products[0]?.stock ?? Number.NaN;
}

export interface RaceTarget {
  readonly harness: ServiceHarness;
  /** The store the Product service writes to. */
  readonly store: DocumentStore;
  close(): Promise<void>;
}

export function describeStockRaces(label: string, start: () => Promise<RaceTarget>): void {
  describe(`stock races (${label})`, function () {
    this.timeout(120_000);
    let target: RaceTarget;

    beforeEach(async () => {
      target = await start();
    });
    afterEach(() => target.close());

    it("lets exactly 20 of 50 concurrent one-unit reservations through on a stock of 20", async () => {
      const { harness, store } = target;
      const productId = await createTestProduct(harness, 20);
      const inventory = harness.peerClient(InventoryService);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          inventory.reserveStock({ orderId: `race-${i}`, lines: [{ productId, quantity: 1 }] }),
        ),
      );
      expect(answers.filter((a) => a.reserved)).to.have.length(20);
      for (const refused of answers.filter((a) => !a.reserved)) {
        expect(refused.shortProductId).to.equal(productId);
      }
      expect(await stockOf(harness, productId)).to.equal(0);
      const ledger = await checkedLedger(store, productId);
      expect(ledger.filter((e) => e.reason === "ORDER_RESERVED")).to.have.length(20);
      expect(ledger.at(-1)?.balance).to.equal(0);
    });

    it("takes the stock once for ten concurrent calls with the same order id, all answered reserved", async () => {
      const { harness, store } = target;
      const productId = await createTestProduct(harness, 10);
      const inventory = harness.peerClient(InventoryService);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          inventory.reserveStock({ orderId: "same-order", lines: [{ productId, quantity: 3 }] }),
        ),
      );
      expect(answers.map((a) => a.reserved)).to.deep.equal(Array.from({ length: 10 }, () => true));
      expect(await stockOf(harness, productId)).to.equal(7);
      expect((await checkedLedger(store, productId)).map((e) => e.reason)).to.deep.equal([
        "INITIAL",
        "ORDER_RESERVED",
      ]);
    });

    it("applies an absolute admin update racing with reservations without losing either", async () => {
      const { harness, store } = target;
      const productId = await createTestProduct(harness, 100);
      const inventory = harness.peerClient(InventoryService);
      const reservations = Array.from({ length: 30 }, (_, i) =>
        inventory.reserveStock({ orderId: `admin-race-${i}`, lines: [{ productId, quantity: 1 }] }),
      );
      const update = harness.client(ProductService, admin).updateProduct({ productId, stock: 50 });
      const [answers] = await Promise.all([Promise.all(reservations), update]);
      expect(answers.every((a) => a.reserved)).to.equal(true);

      const ledger = await checkedLedger(store, productId);
      const adminEntries = ledger.filter((e) => e.reason === "ADMIN_UPDATE");
      expect(adminEntries).to.have.length(1);
      const adminSeq = adminEntries[0]?.seq ?? 0;
      expect(adminEntries[0]?.balance).to.equal(50);
      const reservedAfter = ledger.filter((e) => e.reason === "ORDER_RESERVED" && e.seq > adminSeq).length;
      expect(ledger.filter((e) => e.reason === "ORDER_RESERVED")).to.have.length(30);
      expect(await stockOf(harness, productId)).to.equal(50 - reservedAfter);
    });
  });
}
