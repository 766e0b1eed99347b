import { Code, ConnectError, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import { expect } from "chai";
import type { ServiceRoutes } from "@commerce/runtime/server";
import { eventually, codeOf, startServiceHarness, type ServiceHarness } from "@commerce/runtime/testing";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import {
  admin,
  checkedLedger,
  createTestProduct,
  describeStockRaces,
  stockOf,
} from "./inventory.contract.js";
import { openProductCollections } from "./product-store.js";
import { buildProductService, type ProductOptions } from "./product-module.js";

/**
 * Stand-in for the Order service's PayableOrderService: knows the orders in `known`, answers
 * UNAVAILABLE for those in `down`, NOT_FOUND for the rest.
 */
function payablePeer(known: Set<string>, down: Set<string>): ServiceRoutes {
  const impl: ServiceImpl<typeof PayableOrderService> = {
    getPayableOrder(req) {
      if (down.has(req.orderId)) throw new ConnectError("order service is down", Code.Unavailable);
      if (!known.has(req.orderId)) throw new ConnectError("order not found", Code.NotFound);
      return { orderId: req.orderId, customerId: "c@x.test", status: "CREATED", totalMinor: 100n };
    },
  };
  return {
    services: [PayableOrderService],
    register: (router: ConnectRouter) => router.service(PayableOrderService, impl),
  };
}

function startProductHarness(
  options: ProductOptions = {},
  known = new Set<string>(),
  down = new Set<string>(),
): Promise<ServiceHarness> {
  return startServiceHarness((ctx) => buildProductService(ctx, options), [payablePeer(known, down)]);
}

describeStockRaces("embedded store", async () => {
  const harness = await startProductHarness();
  return { harness, store: harness.context.store, close: () => harness.close() };
});

describe("Product service: InventoryService and ProductLookupService over RPC", () => {
  let harness: ServiceHarness;
  beforeEach(async () => {
    harness = await startProductHarness();
  });
  afterEach(() => harness.close());

  it("reserves every line or none: a short line leaves the others' stock as it was", async () => {
    const plenty = await createTestProduct(harness, 5);
    const scarce = await createTestProduct(harness, 1);
    const inventory = harness.peerClient(InventoryService);
    const lines = [
      { productId: plenty, quantity: 2 },
      { productId: scarce, quantity: 2 },
    ];
    const refused = await inventory.reserveStock({ orderId: "o-short", lines });
    expect(refused).to.include({ reserved: false, shortProductId: scarce });
    expect(await stockOf(harness, plenty)).to.equal(5);
    expect(await stockOf(harness, scarce)).to.equal(1);
    // A repeat answers as the first call did, and takes nothing either.
    expect(await inventory.reserveStock({ orderId: "o-short", lines })).to.include({
      reserved: false,
      shortProductId: scarce,
    });
    expect(await stockOf(harness, plenty)).to.equal(5);
    expect((await checkedLedger(harness.context.store, scarce)).map((e) => e.reason)).to.deep.equal([
      "INITIAL",
    ]);
  });

  it("sums repeated lines of one product before checking the stock", async () => {
    const productId = await createTestProduct(harness, 3);
    const inventory = harness.peerClient(InventoryService);
    const lines = [
      { productId, quantity: 2 },
      { productId, quantity: 2 },
    ];
    expect((await inventory.reserveStock({ orderId: "o-twice", lines })).reserved).to.equal(false);
    expect(await stockOf(harness, productId)).to.equal(3);
  });

  it("is idempotent by order id: a repeated reservation takes nothing more", async () => {
    const productId = await createTestProduct(harness, 10);
    const inventory = harness.peerClient(InventoryService);
    const lines = [{ productId, quantity: 4 }];
    expect((await inventory.reserveStock({ orderId: "o-1", lines })).reserved).to.equal(true);
    expect((await inventory.reserveStock({ orderId: "o-1", lines })).reserved).to.equal(true);
    expect(await stockOf(harness, productId)).to.equal(6);
  });

  it("releases exactly what the reservation took, once, and reports whether it held anything", async () => {
    const a = await createTestProduct(harness, 10);
    const b = await createTestProduct(harness, 5);
    const inventory = harness.peerClient(InventoryService);
    await inventory.reserveStock({
      orderId: "o-rel",
      lines: [
        { productId: a, quantity: 3 },
        { productId: b, quantity: 2 },
      ],
    });
    expect([await stockOf(harness, a), await stockOf(harness, b)]).to.deep.equal([7, 3]);
    expect((await inventory.releaseStock({ orderId: "o-rel" })).released).to.equal(true);
    expect([await stockOf(harness, a), await stockOf(harness, b)]).to.deep.equal([10, 5]);
    expect((await inventory.releaseStock({ orderId: "o-rel" })).released).to.equal(true);
    expect([await stockOf(harness, a), await stockOf(harness, b)]).to.deep.equal([10, 5]);
    // Released means released: a late repeat of the reservation takes nothing.
    expect(
      (await inventory.reserveStock({ orderId: "o-rel", lines: [{ productId: a, quantity: 3 }] })).reserved,
    ).to.equal(false);
    expect(await stockOf(harness, a)).to.equal(10);
  });

  it("answers released false for an order without a reservation, and refuses that order's late reservation", async () => {
    const productId = await createTestProduct(harness, 10);
    const inventory = harness.peerClient(InventoryService);
    expect((await inventory.releaseStock({ orderId: "o-none" })).released).to.equal(false);
    const late = await inventory.reserveStock({ orderId: "o-none", lines: [{ productId, quantity: 1 }] });
    expect(late.reserved).to.equal(false);
    expect(await stockOf(harness, productId)).to.equal(10);
  });

  it("answers NOT_FOUND for an unknown or deleted product and takes nothing from the other lines", async () => {
    const productId = await createTestProduct(harness, 10);
    const deleted = await createTestProduct(harness, 10);
    await harness.client(ProductService, admin).deleteProduct({ productId: deleted });
    const inventory = harness.peerClient(InventoryService);
    for (const missing of ["no-such-product", deleted]) {
      const lines = [
        { productId, quantity: 1 },
        { productId: missing, quantity: 1 },
      ];
      expect(await codeOf(inventory.reserveStock({ orderId: `o-${missing}`, lines }))).to.equal(
        Code.NotFound,
      );
      expect(await codeOf(inventory.reserveStock({ orderId: `o-${missing}`, lines }))).to.equal(
        Code.NotFound,
      );
    }
    expect(await stockOf(harness, productId)).to.equal(10);
  });

  it("publishes PRODUCT_STOCK_UPDATED for each reservation and release, with stock after, delta and order id", async () => {
    const events = await harness.recordEvents("product-events");
    const productId = await createTestProduct(harness, 8);
    const inventory = harness.peerClient(InventoryService);
    await inventory.reserveStock({ orderId: "o-ev", lines: [{ productId, quantity: 3 }] });
    await inventory.releaseStock({ orderId: "o-ev" });
    const stockEvents = await eventually(
      () => {
        const found = events.filter((e) => e.type === "PRODUCT_STOCK_UPDATED");
        return found.length >= 2 ? found : undefined;
      },
      5_000,
      "two PRODUCT_STOCK_UPDATED events",
    );
    expect(
      stockEvents.map((e) => ({ subject: e.subject, data: JSON.parse(e.data) as unknown })),
    ).to.deep.equal([
      {
        subject: productId,
        data: { productId, stock: 5, delta: -3, reason: "ORDER_RESERVED", orderId: "o-ev" },
      },
      {
        subject: productId,
        data: { productId, stock: 8, delta: 3, reason: "ORDER_RELEASED", orderId: "o-ev" },
      },
    ]);
  });

  it("prices products for orders in minor units, flags deleted ones and omits unknown ones", async () => {
    const productId = await createTestProduct(harness, 4, 19.99);
    const deleted = await createTestProduct(harness, 2, 5);
    await harness.client(ProductService, admin).deleteProduct({ productId: deleted });
    const { products } = await harness
      .peerClient(InventoryService)
      .getProductsForOrder({ productIds: [productId, deleted, "no-such-product"] });
    const byId = new Map(products.map((p) => [p.productId, p]));
    expect(byId.size).to.equal(2);
    expect(byId.get(productId)).to.include({ unitPriceMinor: 1999n, active: true, stock: 4 });
    expect(byId.get(deleted)).to.include({ unitPriceMinor: 500n, active: false, stock: 2 });
  });

  it("looks up active products for peers as the list shows them, in the order asked, each once", async () => {
    const pen = await createTestProduct(harness, 4, 19.99, {
      name: "Pen",
      brand: "Acme",
      categoryId: "books",
    });
    const ink = await createTestProduct(harness, 0, 5, { name: "Ink", brand: "", categoryId: "books" });
    const deleted = await createTestProduct(harness, 2, 5);
    await harness.client(ProductService, admin).deleteProduct({ productId: deleted });
    const { products } = await harness
      .peerClient(ProductLookupService)
      .getActiveProducts({ productIds: [ink, deleted, "no-such-product", pen, ink] });
    expect(
      products.map((p) => ({
        id: p.id,
        name: p.name,
        price: p.price,
        stock: p.stock,
        brand: p.brand,
        category: p.category,
      })),
    ).to.deep.equal([
      { id: ink, name: "Ink", price: 5, stock: 0, brand: "", category: "Books" },
      { id: pen, name: "Pen", price: 19.99, stock: 4, brand: "Acme", category: "Books" },
    ]);
  });
});

describe("Product service: reservation sweeper", () => {
  const known = new Set<string>();
  const down = new Set<string>();
  let harness: ServiceHarness;

  beforeEach(async () => {
    known.clear();
    down.clear();
    harness = await startProductHarness({ reservationTtlMs: 300, sweepIntervalMs: 50 }, known, down);
  });
  afterEach(() => harness.close());

  async function stateOf(orderId: string): Promise<string | undefined> {
    const { reservations } = await openProductCollections(harness.context.store);
    return (await reservations.get(orderId))?.state;
  }

  it("releases a HELD reservation past the TTL whose order does not exist, and commits one whose order does", async () => {
    const productId = await createTestProduct(harness, 10);
    const inventory = harness.peerClient(InventoryService);
    known.add("o-written");
    await inventory.reserveStock({ orderId: "o-written", lines: [{ productId, quantity: 2 }] });
    await inventory.reserveStock({ orderId: "o-lost", lines: [{ productId, quantity: 3 }] });
    expect(await stockOf(harness, productId)).to.equal(5);

    await eventually(
      async () => ((await stateOf("o-lost")) === "RELEASED" ? true : undefined),
      5_000,
      "release",
    );
    await eventually(
      async () => ((await stateOf("o-written")) === "COMMITTED" ? true : undefined),
      5_000,
      "commit",
    );
    expect(await stockOf(harness, productId)).to.equal(8);
    // A committed reservation is still released when the order is cancelled.
    expect((await inventory.releaseStock({ orderId: "o-written" })).released).to.equal(true);
    expect(await stockOf(harness, productId)).to.equal(10);
    // And a late ReserveStock for the lost order no longer takes anything.
    expect(
      (await inventory.reserveStock({ orderId: "o-lost", lines: [{ productId, quantity: 3 }] })).reserved,
    ).to.equal(false);
    await checkedLedger(harness.context.store, productId);
  });

  it("keeps a reservation HELD while the Order service cannot answer, and settles it once it can", async () => {
    const productId = await createTestProduct(harness, 10);
    down.add("o-unsure");
    await harness
      .peerClient(InventoryService)
      .reserveStock({ orderId: "o-unsure", lines: [{ productId, quantity: 4 }] });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await stateOf("o-unsure")).to.equal("HELD");
    expect(await stockOf(harness, productId)).to.equal(6);
    down.clear();
    await eventually(
      async () => ((await stateOf("o-unsure")) === "RELEASED" ? true : undefined),
      5_000,
      "release",
    );
    expect(await stockOf(harness, productId)).to.equal(10);
  });

  it("gives back a reservation left PENDING by a crashed reserver, and completes a release left RELEASING", async () => {
    const productId = await createTestProduct(harness, 10);
    const inventory = harness.peerClient(InventoryService);
    await inventory.reserveStock({ orderId: "o-crash", lines: [{ productId, quantity: 2 }] });
    await inventory.reserveStock({ orderId: "o-half", lines: [{ productId, quantity: 3 }] });
    known.add("o-crash").add("o-half");
    // Rewind both to what a crash would have left: a reservation taken but never marked HELD,
    // and a release decided but not carried out.
    const { reservations } = await openProductCollections(harness.context.store);
    for (const [orderId, state] of [
      ["o-crash", "PENDING"],
      ["o-half", "RELEASING"],
    ] as const) {
      const current = await reservations.get(orderId);
      if (current === undefined) throw new Error(`no reservation ${orderId}`);
      expect(await reservations.swap({ ...current, state, _v: current._v + 1 }, current._v)).to.equal(true);
    }
    await eventually(
      async () => ((await stateOf("o-crash")) === "RELEASED" ? true : undefined),
      5_000,
      "PENDING",
    );
    await eventually(
      async () => ((await stateOf("o-half")) === "RELEASED" ? true : undefined),
      5_000,
      "RELEASING",
    );
    expect(await stockOf(harness, productId)).to.equal(10);
    await checkedLedger(harness.context.store, productId);
  });
});
