import { Code, type Client } from "@connectrpc/connect";
import { expect } from "chai";
import type { EventRecord } from "@commerce/runtime/events";
import { eventually, codeOf, startServiceHarness, type ServiceHarness } from "@commerce/runtime/testing";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { createCategories, defaultCategories } from "./categories.js";
import { admin, checkedLedger, createTestProduct, stockOf } from "./inventory.contract.js";
import { openProductCollections, type ProductDocument } from "./product-store.js";
import { buildProductService } from "./product-module.js";

const customer = { userId: 11, email: "c@x.test", role: "CUSTOMER" as const };

function draft(
  name: string,
  fields: Partial<{ price: number; stock: number; brand: string; categoryId: string }> = {},
) {
  return {
    name,
    description: `About ${name}`,
    price: fields.price ?? 499.5,
    stock: fields.stock ?? 7,
    brand: fields.brand ?? "Acme",
    categoryId: fields.categoryId ?? "books",
  };
}

describe("Product service: ProductService over RPC", () => {
  let harness: ServiceHarness;
  let events: EventRecord[];

  beforeEach(async () => {
    events = [];
    harness = await startServiceHarness((ctx) => buildProductService(ctx));
    events = await harness.recordEvents("product-events");
  });
  afterEach(() => harness.close());

  const products = (): Client<typeof ProductService> => harness.client(ProductService, admin);

  async function eventsOfType(type: string, count: number): Promise<unknown[]> {
    const found = await eventually(
      () => {
        const matching = events.filter((e) => e.type === type);
        return matching.length >= count ? matching : undefined;
      },
      5_000,
      `${count} ${type}`,
    );
    return found.map((e) => JSON.parse(e.data) as unknown);
  }

  it("seeds the default categories idempotently, listed by name", async () => {
    const expected = [...defaultCategories]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((c) => ({ id: c._id, name: c.name }));
    const { categories } = await harness.client(ProductService).listCategories({});
    expect(categories.map((c) => ({ id: c.id, name: c.name }))).to.deep.equal(expected);
    const again = createCategories((await openProductCollections(harness.context.store)).categories);
    await again.seed();
    expect(again.list().map((c) => ({ id: c._id, name: c.name }))).to.deep.equal(expected);
  });

  it("refuses anonymous and customer callers on admin methods, and serves reads to anyone", async () => {
    expect(await codeOf(harness.client(ProductService).createProduct({ product: draft("X") }))).to.equal(
      Code.Unauthenticated,
    );
    expect(
      await codeOf(harness.client(ProductService, customer).createProduct({ product: draft("X") })),
    ).to.equal(Code.PermissionDenied);
    expect((await harness.client(ProductService).listProducts({})).totalElements).to.equal(0);
  });

  it("creates a product with a generated SKU, its stock in the ledger, and PRODUCT_CREATED", async () => {
    expect(
      await products().createProduct({ product: draft("Dune", { price: 19.99, stock: 12 }) }),
    ).to.include({
      message: "product created",
    });
    const [summary] = (await harness.client(ProductService).listProducts({})).content;
    const product = await harness.client(ProductService).getProduct({ productId: summary?.id ?? "" });
    expect(product).to.include({
      name: "Dune",
      description: "About Dune",
      price: 19.99,
      stock: 12,
      brand: "Acme",
      category: "Books",
    });
    expect(product.sku).to.match(/^BOOK-[0-9A-HJKMNP-TV-Z]{8}$/);
    const [created] = await eventsOfType("PRODUCT_CREATED", 1);
    expect(created).to.deep.equal({
      productId: product.id,
      name: "Dune",
      stock: 12,
      brand: "Acme",
      categoryId: "books",
      sku: product.sku,
      priceMinor: "1999",
    });
    expect((await checkedLedger(harness.context.store, product.id)).map((e) => e.reason)).to.deep.equal([
      "INITIAL",
    ]);
  });

  it("refuses a price with three decimals, and an unknown category as not found, creating nothing", async () => {
    expect(await codeOf(products().createProduct({ product: draft("A", { price: 1.999 }) }))).to.equal(
      Code.InvalidArgument,
    );
    expect(await codeOf(products().createProduct({ product: draft("B", { categoryId: "cars" }) }))).to.equal(
      Code.NotFound,
    );
    expect((await harness.client(ProductService).listProducts({})).totalElements).to.equal(0);
  });

  it("allows one active product per name and brand, case-insensitively; deleting frees the name", async () => {
    await products().createProduct({ product: draft("Kettle", { brand: "Prestige" }) });
    expect(
      await codeOf(products().createProduct({ product: draft(" kettle ", { brand: "PRESTIGE" }) })),
    ).to.equal(Code.AlreadyExists);
    await products().createProduct({ product: draft("Kettle", { brand: "Philips" }) });
    const listed = await harness.client(ProductService).listProducts({ brand: "Prestige" });
    await products().deleteProduct({ productId: listed.content[0]?.id ?? "" });
    await products().createProduct({ product: draft("KETTLE", { brand: "prestige" }) });
    expect((await harness.client(ProductService).listProducts({})).totalElements).to.equal(2);
  });

  it("lets exactly one of ten concurrent creations of the same product win", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        products()
          .createProduct({ product: draft("Racer") })
          .then(
            () => "created",
            (error: unknown) => codeOf(Promise.reject(error as Error)),
          ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "created")).to.have.length(1);
    expect(outcomes.filter((outcome) => outcome === Code.AlreadyExists)).to.have.length(9);
    const { content } = await harness.client(ProductService).listProducts({});
    expect(content.filter((p) => p.name === "Racer")).to.have.length(1);
  });

  it("updates price and stock with PRODUCT_UPDATED and PRODUCT_STOCK_UPDATED", async () => {
    const productId = await createTestProduct(harness, 10, 5);
    await products().updateProduct({ productId, price: 7.25, stock: 4 });
    expect(await harness.client(ProductService).getProduct({ productId })).to.include({
      price: 7.25,
      stock: 4,
    });
    expect(await eventsOfType("PRODUCT_UPDATED", 1)).to.deep.equal([
      {
        productId,
        name: (await harness.client(ProductService).getProduct({ productId })).name,
        stock: 4,
        priceMinor: "725",
      },
    ]);
    expect(await eventsOfType("PRODUCT_STOCK_UPDATED", 1)).to.deep.equal([
      { productId, stock: 4, delta: -6, reason: "ADMIN_UPDATE", orderId: "" },
    ]);
    await products().updateProduct({ productId, price: 8 });
    expect((await eventsOfType("PRODUCT_UPDATED", 2))[1]).to.include({ priceMinor: "800", stock: 4 });
    expect(await codeOf(products().updateProduct({ productId, price: 8.001 }))).to.equal(
      Code.InvalidArgument,
    );
    expect(await codeOf(products().updateProduct({ productId: "nope", stock: 1 }))).to.equal(Code.NotFound);
  });

  it("soft-deletes: PRODUCT_DELETED, gone from reads, NOT_FOUND the second time, still known to orders", async () => {
    const productId = await createTestProduct(harness, 3);
    await products().deleteProduct({ productId });
    const [deleted] = await eventsOfType("PRODUCT_DELETED", 1);
    expect(deleted).to.deep.include({ productId });
    expect(await codeOf(harness.client(ProductService).getProduct({ productId }))).to.equal(Code.NotFound);
    expect((await harness.client(ProductService).listProducts({})).totalElements).to.equal(0);
    expect(await codeOf(products().deleteProduct({ productId }))).to.equal(Code.NotFound);
    expect(await codeOf(products().updateProduct({ productId, stock: 9 }))).to.equal(Code.NotFound);
    const { products: forOrder } = await harness.peerClient(InventoryService).getProductsForOrder({
      productIds: [productId],
    });
    expect(forOrder[0]).to.include({ productId, active: false, stock: 3 });
  });

  it("bulk-creates all items, in request order, or none of them", async () => {
    const { ids, message } = await products().bulkCreateProducts({
      products: [draft("Bulk A"), draft("Bulk B", { categoryId: "toys" })],
    });
    expect(message).to.equal("2 products created");
    expect(ids).to.have.length(2);
    expect((await harness.client(ProductService).getProduct({ productId: ids[1] ?? "" })).name).to.equal(
      "Bulk B",
    );

    const bad = [
      [draft("Bulk C"), draft("Bulk D", { price: 0.125 })],
      [draft("Bulk C"), draft("Bulk D", { categoryId: "cars" })],
      [draft("Bulk C"), draft("bulk c")],
      [draft("Bulk C"), draft("Bulk A")],
    ];
    const codes = [];
    for (const items of bad) codes.push(await codeOf(products().bulkCreateProducts({ products: items })));
    expect(codes).to.deep.equal([
      Code.InvalidArgument,
      Code.NotFound,
      Code.AlreadyExists,
      Code.AlreadyExists,
    ]);
    const { content } = await harness.client(ProductService).listProducts({});
    expect(content.map((p) => p.name).sort()).to.deep.equal(["Bulk A", "Bulk B"]);
  });

  it("keeps a bulk creation all-or-nothing when a single creation races it for one of its names", async () => {
    for (let round = 0; round < 5; round++) {
      const names = [`Round ${round} a`, `Round ${round} b`, `Round ${round} c`];
      const [bulk, single] = await Promise.allSettled([
        products().bulkCreateProducts({ products: names.map((name) => draft(name)) }),
        products().createProduct({ product: draft(names[2] ?? "") }),
      ]);
      expect([bulk.status, single.status].filter((s) => s === "fulfilled")).to.have.length(1);
      const { content } = await harness.client(ProductService).listProducts({ size: 100 });
      const listed = content.map((p) => p.name).filter((name) => name.startsWith(`Round ${round} `));
      expect(listed.sort()).to.deep.equal(bulk.status === "fulfilled" ? names : [names[2]]);
    }
  });

  it("lists active products newest first, paged, filtered by category id or name and by brand", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        await createTestProduct(harness, i, 1, {
          name: `Item ${i}`,
          brand: i % 2 === 0 ? "Even" : "Odd",
          categoryId: i < 3 ? "toys" : "sports",
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const client = harness.client(ProductService);
    const first = await client.listProducts({ size: 2 });
    expect(first.content.map((p) => p.name)).to.deep.equal(["Item 4", "Item 3"]);
    expect(first).to.include({ totalElements: 5, totalPages: 3 });
    expect((await client.listProducts({ page: 2, size: 2 })).content.map((p) => p.name)).to.deep.equal([
      "Item 0",
    ]);
    expect((await client.listProducts({ page: 3, size: 2 })).content).to.deep.equal([]);
    expect((await client.listProducts({ category: "Toys" })).content.map((p) => p.name)).to.deep.equal([
      "Item 2",
      "Item 1",
      "Item 0",
    ]);
    expect(
      (await client.listProducts({ category: "toys", brand: "Even" })).content.map((p) => p.name),
    ).to.deep.equal(["Item 2", "Item 0"]);
    expect((await client.listProducts({ category: "TOYS" })).totalElements).to.equal(0);
    expect((await client.listProducts({ category: "Cars" })).totalElements).to.equal(0);
    expect((await client.listProducts({ size: 1 })).content[0]).to.deep.include({
      id: ids[4],
      name: "Item 4",
      price: 1,
      stock: 4,
      brand: "Even",
      category: "Sports",
    });
  });

  it("validates list parameters: size 1 to 100", async () => {
    expect(await codeOf(harness.client(ProductService).listProducts({ size: 101 }))).to.equal(
      Code.InvalidArgument,
    );
    expect(await codeOf(harness.client(ProductService).listProducts({ size: 0 }))).to.equal(
      Code.InvalidArgument,
    );
  });
});

describe("Product service: interrupted bulk creations", () => {
  it("activates a batch whose products were all written and removes one that was cut short", async () => {
    const harness = await startServiceHarness((ctx) =>
      buildProductService(ctx, { staleBatchMs: 200, sweepIntervalMs: 50 }),
    );
    try {
      const { products } = await openProductCollections(harness.context.store);
      const pending = (id: string, batchId: string, batchSize: number): ProductDocument => ({
        _id: id,
        _v: 1,
        name: `Pending ${id}`,
        description: "",
        priceMinor: 100,
        brand: "Acme",
        categoryId: "books",
        sku: `SKU-${id}`,
        status: "PENDING",
        nameKey: `pending:${id}`,
        createdAt: Date.now() - 1_000,
        batchId,
        batchSize,
        outbox: [],
        outboxPending: false,
      });
      // A crash after writing both products of batch "whole", and after one of two of "cut".
      await products.insert(pending("w1", "whole", 2));
      await products.insert(pending("w2", "whole", 2));
      await products.insert(pending("c1", "cut", 2));
      await eventually(
        async () =>
          (await products.get("w2"))?.status === "ACTIVE" && !(await products.get("c1")) ? true : undefined,
        5_000,
        "the sweep",
      );
      expect((await products.get("w1"))?.status).to.equal("ACTIVE");
      const listed = await harness.client(ProductService).listProducts({});
      expect(listed.content.map((p) => p.id).sort()).to.deep.equal(["w1", "w2"]);
      expect(await stockOf(harness, "w1")).to.equal(0);
    } finally {
      await harness.close();
    }
  });
});
