import { Code, ConnectError } from "@connectrpc/connect";
import { expect } from "chai";
import { type EventRecord, parseEventData } from "@commerce/runtime/events";
import type { Collection, DocumentStore, StoredDocument } from "@commerce/runtime/store";
import {
  eventually,
  codeOf,
  startServiceHarness,
  type ServiceHarness,
  composeModules,
  createFaultyTransport,
  type FaultyTransport,
} from "@commerce/runtime/testing";
import { OrderPlacedSchema } from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { buildProductService, type ProductOptions } from "@commerce/product";
import { buildOrderService } from "./order-module.js";
import { openOrderCollections } from "./order-store.js";

const alice = { userId: 11, email: "alice@x.test", role: "CUSTOMER" as const };
const bob = { userId: 12, email: "bob@x.test", role: "CUSTOMER" as const };
const admin = { userId: 13, email: "root@x.test", role: "ADMIN" as const };
/** A later account that registered alice's email after hers was deleted. */
const aliceAgain = { userId: 21, email: alice.email, role: "CUSTOMER" as const };

/** Makes the next insert into `orders` fail: before it reaches the store, or after it landed. */
interface InsertFault {
  next: "none" | "lost" | "unacknowledged";
}

function withInsertFault(store: DocumentStore, fault: InsertFault): DocumentStore {
  return {
    identity: store.identity,
    async collection<T extends StoredDocument>(spec: Parameters<DocumentStore["collection"]>[0]) {
      const inner = (await store.collection(spec)) as Collection<T>;
      if (spec.name !== "orders") return inner;
      return {
        get: (id, signal) => inner.get(id, signal),
        findOne: (filter, options) => inner.findOne(filter, options),
        find: (filter, options) => inner.find(filter, options),
        count: (filter, signal) => inner.count(filter, signal),
        swap: (next, expected, signal) => inner.swap(next, expected, signal),
        delete: (id, signal) => inner.delete(id, signal),
        async insert(doc, signal) {
          const mode = fault.next;
          fault.next = "none";
          if (mode === "lost") throw new Error("connection reset before the write");
          await inner.insert(doc, signal);
          if (mode === "unacknowledged") throw new Error("connection reset after the write");
        },
      } satisfies Collection<T>;
    },
    close: () => store.close(),
  };
}

/** The Order service and the real Product service in one harness; the network between them can fail. */
interface OrderStack {
  readonly harness: ServiceHarness;
  /** What the Order service sends to the Product service. */
  readonly network: FaultyTransport;
}

async function startOrders(
  product: ProductOptions = {},
  fault: InsertFault = { next: "none" },
): Promise<OrderStack> {
  let network: FaultyTransport | undefined;
  const harness = await startServiceHarness(async (ctx) => {
    network = createFaultyTransport(ctx.transport);
    return composeModules(
      await buildProductService(ctx, product),
      await buildOrderService({ ...ctx, store: withInsertFault(ctx.store, fault), transport: network }),
    );
  });
  return { harness, network: defined(network) };
}

/** Creates active products through the Product service, as an admin; returns their ids in order. */
async function createProducts(
  harness: ServiceHarness,
  ...products: { name: string; price: number; stock: number }[]
): Promise<string[]> {
  const { ids } = await harness.client(ProductService, admin).bulkCreateProducts({
    products: products.map((product) => ({
      ...product,
      description: "",
      brand: "Acme",
      categoryId: "books",
    })),
  });
  return ids;
}

/** Current stock, as the Product service counts it (inactive products included). */
async function stockOf(harness: ServiceHarness, productId: string): Promise<number | undefined> {
  const { products } = await harness
    .peerClient(InventoryService)
    .getProductsForOrder({ productIds: [productId] });
  return products[0]?.stock;
}

function defined<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

async function failure(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("expected the call to fail");
}

describe("Order service: placeOrder", () => {
  let harness: ServiceHarness;
  let network: FaultyTransport;
  let events: EventRecord[];
  let pen: string; // 19.99, 10 in stock
  let ink: string; // 0.10, 5 in stock
  let old: string; // deleted (inactive)
  const fault: InsertFault = { next: "none" };

  beforeEach(async () => {
    fault.next = "none";
    events = [];
    ({ harness, network } = await startOrders({}, fault));
    [pen = "", ink = "", old = ""] = await createProducts(
      harness,
      { name: "Pen", price: 19.99, stock: 10 },
      { name: "Ink", price: 0.1, stock: 5 },
      { name: "Old", price: 5, stock: 5 },
    );
    await harness.client(ProductService, admin).deleteProduct({ productId: old });
    events = await harness.recordEvents("order-events");
  });
  afterEach(() => harness.close());

  const orders = (caller: { userId: number; email: string; role: "CUSTOMER" | "ADMIN" } = alice) =>
    harness.client(OrderService, caller);
  const stock = (id: string): Promise<number | undefined> => stockOf(harness, id);
  const allOrders = async (): Promise<string[]> =>
    (await orders(admin).listOrders({})).orders.map((o) => o.orderId);
  const reserved = (): string[] =>
    network.requests(InventoryService.method.reserveStock).map((r) => r.orderId);
  const released = (): string[] =>
    network.requests(InventoryService.method.releaseStock).map((r) => r.orderId);
  const lookups = (): string[][] =>
    network.requests(InventoryService.method.getProductsForOrder).map((r) => r.productIds);

  it("computes the total in minor units (3 × 19.99 + 5 × 0.10 = 60.47) and takes the stock", async () => {
    const placed = await orders().placeOrder({
      items: [
        { productId: pen, quantity: 3 },
        { productId: ink, quantity: 5 },
      ],
    });
    expect(placed.orderId).to.match(/^ord_[A-Za-z0-9_-]{22}$/);
    expect(placed.status).to.equal("CREATED");
    expect(placed.totalAmount).to.equal(60.47);
    expect(await stock(pen)).to.equal(7);
    expect(await stock(ink)).to.equal(0);
    const single = await orders().placeOrder({ items: [{ productId: pen, quantity: 3 }] });
    expect(single.totalAmount).to.equal(59.97);
    expect(JSON.stringify({ total: single.totalAmount })).to.equal('{"total":59.97}');
  });

  it("keeps each line's unit price at placement, whatever the price becomes", async () => {
    const { orderId } = await orders().placeOrder({ items: [{ productId: pen, quantity: 2 }] });
    await harness.client(ProductService, admin).updateProduct({ productId: pen, price: 25 });
    const order = await orders().getOrder({ orderId });
    expect(order.totalAmount).to.equal(39.98);
    expect(
      order.items.map((i) => ({ productId: i.productId, quantity: i.quantity, price: i.price })),
    ).to.deep.equal([{ productId: pen, quantity: 2, price: 19.99 }]);
    expect(order).to.include({ orderId, customerId: alice.email, status: "CREATED" });
    expect(order.orderDate).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    // The new price applies to the next order.
    expect((await orders().placeOrder({ items: [{ productId: pen, quantity: 2 }] })).totalAmount).to.equal(
      50,
    );
  });

  it("publishes ORDER_PLACED with the order's fields, keyed by the order id", async () => {
    const { orderId } = await orders().placeOrder({ items: [{ productId: pen, quantity: 3 }] });
    const [placed] = await eventually(() => (events.length > 0 ? events : undefined), 5_000, "ORDER_PLACED");
    expect(placed).to.include({
      type: "ORDER_PLACED",
      topic: "order-events",
      source: "/commerce/order",
      subject: orderId,
    });
    const data = JSON.parse(placed?.data ?? "{}") as Record<string, unknown>;
    // Money in minor units; proto3 JSON prints int64 as a string.
    expect(data).to.include({
      orderId,
      customerId: alice.email,
      customerUserId: alice.userId,
      totalAmountMinor: "5997",
    });
    expect(data["items"]).to.deep.equal([{ productId: pen, quantity: 3, priceMinor: "1999" }]);
  });

  it("carries money in ORDER_PLACED as exact minor units: 0.29 × 3 is 87 paise, not 0.8699999999999999", async () => {
    const [clip = ""] = await createProducts(harness, { name: "Clip", price: 0.29, stock: 10 });
    expect(0.29 * 3).to.not.equal(0.87); // why amounts travel as integers
    const { orderId } = await orders().placeOrder({ items: [{ productId: clip, quantity: 3 }] });
    const [placed] = await eventually(() => (events.length > 0 ? events : undefined), 5_000, "ORDER_PLACED");
    const payload = parseEventData(OrderPlacedSchema, defined(placed));
    expect(payload.orderId).to.equal(orderId);
    expect(payload.totalAmountMinor).to.equal(87n);
    expect(payload.items.map((item) => [item.productId, item.quantity, item.priceMinor])).to.deep.equal([
      [clip, 3, 29n],
    ]);
  });

  it("answers NOT_FOUND for an unknown or inactive product and reserves nothing", async () => {
    for (const productId of ["prd_none", old]) {
      const error = await failure(
        orders().placeOrder({
          items: [
            { productId: pen, quantity: 1 },
            { productId, quantity: 1 },
          ],
        }),
      );
      expect(error.code).to.equal(Code.NotFound);
      expect(error.rawMessage).to.equal(`product not found: ${productId}`);
    }
    expect(reserved()).to.deep.equal([]);
    expect([await stock(pen), await stock(old)]).to.deep.equal([10, 5]);
    expect(await allOrders()).to.deep.equal([]);
  });

  it("refuses quantities above stock with INVALID_ARGUMENT and leaves stock and orders unchanged", async () => {
    const error = await failure(
      orders().placeOrder({
        items: [
          { productId: pen, quantity: 1 },
          { productId: ink, quantity: 6 },
        ],
      }),
    );
    expect(error.code).to.equal(Code.InvalidArgument);
    expect(error.rawMessage).to.equal(`insufficient stock for product ${ink}`);
    expect(reserved()).to.deep.equal([]); // visibly short: no reservation attempted
    expect([await stock(pen), await stock(ink)]).to.deep.equal([10, 5]);
    expect(await allOrders()).to.deep.equal([]);
  });

  it("refuses when the reservation comes back short, writing no order", async () => {
    // Another order takes 2 of the 5 inks after our lookup saw 5 and before our reservation.
    network.before(InventoryService.method.reserveStock, async () => {
      await harness
        .peerClient(InventoryService)
        .reserveStock({ orderId: "ord_other", lines: [{ productId: ink, quantity: 2 }] });
    });
    const error = await failure(
      orders().placeOrder({
        items: [
          { productId: pen, quantity: 1 },
          { productId: ink, quantity: 4 },
        ],
      }),
    );
    expect(error.code).to.equal(Code.InvalidArgument);
    expect(error.rawMessage).to.equal(`insufficient stock for product ${ink}`);
    expect(reserved()).to.have.length(1);
    expect([await stock(pen), await stock(ink)]).to.deep.equal([10, 3]); // all lines or none
    expect(await allOrders()).to.deep.equal([]);
  });

  it("answers NOT_FOUND for a product deactivated between the price lookup and the reservation", async () => {
    network.before(InventoryService.method.reserveStock, async () => {
      await harness.client(ProductService, admin).deleteProduct({ productId: pen });
    });
    const error = await failure(
      orders().placeOrder({
        items: [
          { productId: ink, quantity: 1 },
          { productId: pen, quantity: 1 },
        ],
      }),
    );
    expect(error.code).to.equal(Code.NotFound);
    expect(error.rawMessage).to.equal(`product not found: ${pen}`);
    expect(reserved()).to.have.length(1);
    expect([await stock(pen), await stock(ink)]).to.deep.equal([10, 5]);
    expect(await allOrders()).to.deep.equal([]);
  });

  it("refuses a product on two lines with INVALID_ARGUMENT before asking the Product service", async () => {
    const error = await failure(
      orders().placeOrder({
        items: [
          { productId: pen, quantity: 1 },
          { productId: pen, quantity: 2 },
        ],
      }),
    );
    expect(error.code).to.equal(Code.InvalidArgument);
    expect(error.rawMessage).to.equal(`duplicate product in items: ${pen} (one line per product)`);
    expect(lookups()).to.deep.equal([]);
  });

  it("validates the request: no items, quantity 0, more than 1000", async () => {
    for (const items of [[], [{ productId: pen, quantity: 0 }], [{ productId: pen, quantity: 1001 }]]) {
      expect(await codeOf(orders().placeOrder({ items }))).to.equal(Code.InvalidArgument);
    }
    expect(lookups()).to.deep.equal([]);
  });

  it("refuses anonymous callers with UNAUTHENTICATED", async () => {
    expect(
      await codeOf(harness.client(OrderService).placeOrder({ items: [{ productId: pen, quantity: 1 }] })),
    ).to.equal(Code.Unauthenticated);
  });

  it("answers UNAVAILABLE when the Product service is down, and writes nothing", async () => {
    network.fail(InventoryService.method.getProductsForOrder);
    expect(await codeOf(orders().placeOrder({ items: [{ productId: pen, quantity: 1 }] }))).to.equal(
      Code.Unavailable,
    );
    expect(reserved()).to.deep.equal([]);
    network.restore();
    network.fail(InventoryService.method.reserveStock);
    expect(await codeOf(orders().placeOrder({ items: [{ productId: pen, quantity: 1 }] }))).to.equal(
      Code.Unavailable,
    );
    expect(released()).to.have.length(1); // a reservation of unknown outcome is released
    expect(await stock(pen)).to.equal(10);
    expect(await allOrders()).to.deep.equal([]);
  });

  it("releases a reservation whose answer was lost, so its stock comes back", async () => {
    network.fail(InventoryService.method.reserveStock, "answer lost");
    expect(await codeOf(orders().placeOrder({ items: [{ productId: pen, quantity: 4 }] }))).to.equal(
      Code.Unavailable,
    );
    expect(reserved()).to.have.length(1);
    expect(released()).to.deep.equal(reserved());
    expect(await stock(pen)).to.equal(10);
    expect(await allOrders()).to.deep.equal([]);
  });

  it("releases the stock when the order cannot be written, and the id stays unusable", async () => {
    fault.next = "lost";
    const error = await failure(orders().placeOrder({ items: [{ productId: pen, quantity: 4 }] }));
    expect(error.code).to.equal(Code.Unavailable);
    const [orderId = ""] = reserved();
    expect(released()).to.deep.equal([orderId]);
    expect(await stock(pen)).to.equal(10);
    expect(await allOrders()).to.deep.equal([]);
    expect(await codeOf(orders(admin).getOrder({ orderId }))).to.equal(Code.NotFound);
    expect(await codeOf(harness.peerClient(PayableOrderService).getPayableOrder({ orderId }))).to.equal(
      Code.NotFound,
    );
  });

  it("keeps an order whose write landed though its acknowledgement was lost", async () => {
    fault.next = "unacknowledged";
    const placed = await orders().placeOrder({ items: [{ productId: pen, quantity: 4 }] });
    expect(released()).to.deep.equal([]);
    expect(await stock(pen)).to.equal(6);
    expect(await allOrders()).to.deep.equal([placed.orderId]);
  });
});

describe("Order service: placeOrder with a slow reservation", () => {
  it("gives up and releases when the reservation is older than half the TTL", async () => {
    // The Product service's reservation TTL is 200 ms; the reservation takes over 150 ms.
    const { harness, network } = await startOrders({ reservationTtlMs: 200 });
    try {
      const [pen = ""] = await createProducts(harness, { name: "Pen", price: 19.99, stock: 10 });
      network.delay(InventoryService.method.reserveStock, 150);
      const error = await failure(
        harness.client(OrderService, alice).placeOrder({ items: [{ productId: pen, quantity: 4 }] }),
      );
      expect(error.code).to.equal(Code.Unavailable);
      expect(error.rawMessage).to.equal("the order could not be placed in time; retry");
      const reserved = network.requests(InventoryService.method.reserveStock).map((r) => r.orderId);
      const released = network.requests(InventoryService.method.releaseStock).map((r) => r.orderId);
      expect(reserved).to.have.length(1);
      expect(released).to.deep.equal(reserved);
      expect(await stockOf(harness, pen)).to.equal(10);
      expect((await harness.client(OrderService, admin).listOrders({})).orders).to.deep.equal([]);
    } finally {
      await harness.close();
    }
  });
});

describe("Order service: reading orders", () => {
  let harness: ServiceHarness;
  let pen: string;

  beforeEach(async () => {
    ({ harness } = await startOrders());
    [pen = ""] = await createProducts(harness, { name: "Pen", price: 19.99, stock: 100 });
  });
  afterEach(() => harness.close());

  const place = async (caller: typeof alice, quantity: number): Promise<string> =>
    (await harness.client(OrderService, caller).placeOrder({ items: [{ productId: pen, quantity }] }))
      .orderId;

  it("lets the owner and admins read an order, and refuses other accounts, the same email's later one too, with PERMISSION_DENIED", async () => {
    const orderId = await place(alice, 1);
    expect((await harness.client(OrderService, alice).getOrder({ orderId })).customerId).to.equal(
      alice.email,
    );
    expect((await harness.client(OrderService, admin).getOrder({ orderId })).customerId).to.equal(
      alice.email,
    );
    for (const other of [bob, aliceAgain]) {
      const error = await failure(harness.client(OrderService, other).getOrder({ orderId }));
      expect(error.code, other.email).to.equal(Code.PermissionDenied);
      expect(error.rawMessage).to.equal("this order belongs to another customer");
    }
    expect(await codeOf(harness.client(OrderService, alice).getOrder({ orderId: "ord_unknown" }))).to.equal(
      Code.NotFound,
    );
  });

  it("lists a customer's own orders newest first, and every order for admins only", async () => {
    const first = await place(alice, 1);
    const second = await place(bob, 2);
    const third = await place(alice, 3);
    const mine = (await harness.client(OrderService, alice).listMyOrders({})).orders;
    expect(mine.map((o) => [o.orderId, o.status, o.totalAmount])).to.deep.equal([
      [third, "CREATED", 59.97],
      [first, "CREATED", 19.99],
    ]);
    // The account that took alice's email later owns none of them.
    expect((await harness.client(OrderService, aliceAgain).listMyOrders({})).orders).to.deep.equal([]);
    const all = (await harness.client(OrderService, admin).listOrders({})).orders;
    expect(all.map((o) => o.orderId)).to.have.members([first, second, third]);
    expect(all[0]?.orderId).to.equal(third);
    expect(all.find((o) => o.orderId === second)).to.include({ customerId: bob.email, totalAmount: 39.98 });
    expect(await codeOf(harness.client(OrderService, alice).listOrders({}))).to.equal(Code.PermissionDenied);
  });

  it("answers GetPayableOrder with the owner's id and the total in minor units, and NOT_FOUND for an unknown id", async () => {
    const orderId = await place(alice, 3);
    const payable = await harness.peerClient(PayableOrderService).getPayableOrder({ orderId });
    expect([
      payable.orderId,
      payable.customerId,
      payable.customerUserId,
      payable.status,
      payable.totalMinor,
    ]).to.deep.equal([orderId, alice.email, alice.userId, "CREATED", 5997n]);
    expect(
      await codeOf(harness.peerClient(PayableOrderService).getPayableOrder({ orderId: "ord_nope" })),
    ).to.equal(Code.NotFound);
  });

  it("answers GetPayableOrder without an owner for an order whose owner is not known yet, and lists it for nobody", async () => {
    const orderId = await place(alice, 1);
    // As the release before owners by id wrote it, and no backfill pass has come yet.
    const { orders } = await openOrderCollections(harness.context.store);
    const stored = await orders.get(orderId);
    if (stored === undefined) throw new Error("no order");
    const legacy: Record<string, unknown> = { ...stored, _v: stored._v + 1 };
    delete legacy["customerUserId"];
    expect(await orders.swap(legacy as unknown as typeof stored, stored._v)).to.equal(true);
    const payable = await harness.peerClient(PayableOrderService).getPayableOrder({ orderId });
    expect([payable.customerId, payable.customerUserId]).to.deep.equal([alice.email, undefined]);
    expect((await harness.client(OrderService, alice).listMyOrders({})).orders).to.deep.equal([]);
    expect(await codeOf(harness.client(OrderService, alice).getOrder({ orderId }))).to.equal(
      Code.PermissionDenied,
    );
  });
});
