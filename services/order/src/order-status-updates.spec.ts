import { Code, ConnectError } from "@connectrpc/connect";
import { expect } from "chai";
import type { EventRecord } from "@commerce/runtime/events";
import {
  eventually,
  codeOf,
  startServiceHarness,
  type ServiceHarness,
  composeModules,
  createFaultyTransport,
  type FaultyTransport,
} from "@commerce/runtime/testing";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { buildProductService } from "@commerce/product";
import { orderStatuses, type OrderStatus } from "./order-status.js";
import { buildOrderService, type OrderOptions } from "./order-module.js";

const alice = { userId: 11, email: "alice@x.test", role: "CUSTOMER" as const };
const admin = { userId: 13, email: "root@x.test", role: "ADMIN" as const };

/** The Order service and the real Product service in one harness; the network between them can fail. */
interface OrderStack {
  readonly harness: ServiceHarness;
  /** What the Order service sends to the Product service. */
  readonly network: FaultyTransport;
  /** A pen at 19.99, 100 in stock. */
  readonly pen: string;
}

async function startOrders(options: OrderOptions): Promise<OrderStack> {
  let network: FaultyTransport | undefined;
  const harness = await startServiceHarness(async (ctx) => {
    network = createFaultyTransport(ctx.transport);
    return composeModules(
      await buildProductService(ctx),
      await buildOrderService({ ...ctx, transport: network }, options),
    );
  });
  if (network === undefined) throw new Error("the harness built nothing");
  const { ids } = await harness.client(ProductService, admin).bulkCreateProducts({
    products: [
      { name: "Pen", description: "", price: 19.99, stock: 100, brand: "Acme", categoryId: "books" },
    ],
  });
  return { harness, network, pen: ids[0] ?? "" };
}

/** Current stock, as the Product service counts it. */
async function stockOf(harness: ServiceHarness, productId: string): Promise<number | undefined> {
  const { products } = await harness
    .peerClient(InventoryService)
    .getProductsForOrder({ productIds: [productId] });
  return products[0]?.stock;
}

/** How many ReleaseStock calls for `orderId` reached the Product service. */
function releasesOf(network: FaultyTransport, orderId: string): number {
  return network.requests(InventoryService.method.releaseStock).filter((r) => r.orderId === orderId).length;
}

describe("Order service: updateOrderStatus", () => {
  let harness: ServiceHarness;
  let network: FaultyTransport;
  let pen: string;
  let events: EventRecord[];

  beforeEach(async () => {
    events = [];
    ({ harness, network, pen } = await startOrders({ releaseRetryIntervalMs: 50 }));
    events = await harness.recordEvents("order-events");
  });
  afterEach(() => harness.close());

  const orders = () => harness.client(OrderService, admin);
  const stock = (): Promise<number | undefined> => stockOf(harness, pen);
  const statusOf = async (orderId: string): Promise<string> => (await orders().getOrder({ orderId })).status;
  const updatesOf = (orderId: string): Record<string, unknown>[] =>
    events
      .filter((e) => e.type === "ORDER_STATUS_UPDATED" && e.subject === orderId)
      .map((e) => JSON.parse(e.data) as Record<string, unknown>);

  /** An order of 4 pens, moved along the allowed path to `status`. */
  async function orderIn(status: OrderStatus): Promise<string> {
    const { orderId } = await harness
      .client(OrderService, alice)
      .placeOrder({ items: [{ productId: pen, quantity: 4 }] });
    const path: OrderStatus[] =
      status === "CREATED" ? [] : status === "CONFIRMED" ? ["CONFIRMED"] : ["CONFIRMED", "CANCELLED"];
    for (const step of path) await orders().updateOrderStatus({ orderId, status: step });
    return orderId;
  }

  const expected: Record<OrderStatus, Record<OrderStatus, Code | "ok">> = {
    CREATED: { CREATED: Code.InvalidArgument, CONFIRMED: "ok", CANCELLED: Code.AlreadyExists },
    CONFIRMED: { CREATED: Code.InvalidArgument, CONFIRMED: Code.AlreadyExists, CANCELLED: "ok" },
    CANCELLED: {
      CREATED: Code.InvalidArgument,
      CONFIRMED: Code.AlreadyExists,
      CANCELLED: Code.AlreadyExists,
    },
  };
  for (const from of orderStatuses) {
    for (const to of orderStatuses) {
      const outcome = expected[from][to];
      const what =
        outcome === "ok"
          ? "moves"
          : outcome === Code.AlreadyExists
            ? "refuses with a conflict (409)"
            : "refuses as invalid input (400: not a requestable status)";
      it(`${what}: ${from} → ${to}`, async () => {
        const orderId = await orderIn(from);
        const call = orders().updateOrderStatus({ orderId, status: to });
        if (outcome === "ok") {
          expect((await call).message).to.equal("order status updated");
          expect(await statusOf(orderId)).to.equal(to);
          return;
        }
        let error: ConnectError | undefined;
        try {
          await call;
        } catch (caught) {
          error = ConnectError.from(caught);
        }
        expect(error?.code).to.equal(outcome);
        if (outcome === Code.AlreadyExists) {
          expect(error?.rawMessage).to.equal(`invalid status transition: ${from} to ${to}`);
        }
        expect(await statusOf(orderId)).to.equal(from);
      });
    }
  }

  it("refuses customers with PERMISSION_DENIED, an unknown status value as invalid, an unknown order as not found", async () => {
    const orderId = await orderIn("CREATED");
    expect(
      await codeOf(harness.client(OrderService, alice).updateOrderStatus({ orderId, status: "CONFIRMED" })),
    ).to.equal(Code.PermissionDenied);
    expect(await codeOf(orders().updateOrderStatus({ orderId, status: "SHIPPED" }))).to.equal(
      Code.InvalidArgument,
    );
    expect(await codeOf(orders().updateOrderStatus({ orderId, status: "confirmed" }))).to.equal(
      Code.InvalidArgument,
    );
    expect(
      await codeOf(orders().updateOrderStatus({ orderId: "ord_unknown", status: "CONFIRMED" })),
    ).to.equal(Code.NotFound);
    expect(await statusOf(orderId)).to.equal("CREATED");
  });

  it("publishes ORDER_STATUS_UPDATED with the previous and the new status", async () => {
    const orderId = await orderIn("CONFIRMED");
    const [update] = await eventually(() => (updatesOf(orderId).length > 0 ? updatesOf(orderId) : undefined));
    expect(update).to.include({
      orderId,
      customerId: alice.email,
      customerUserId: alice.userId,
      previousStatus: "CREATED",
      status: "CONFIRMED",
      totalAmountMinor: "7996",
    });
    expect(update?.["updatedAt"]).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it("lets exactly one of many concurrent confirmations win, with one event", async () => {
    const orderId = await orderIn("CREATED");
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => orders().updateOrderStatus({ orderId, status: "CONFIRMED" })),
    );
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.flatMap((o) => (o.status === "rejected" ? [ConnectError.from(o.reason).code] : []));
    expect(won).to.have.length(1);
    expect(lost).to.deep.equal(Array.from({ length: 9 }, () => Code.AlreadyExists));
    await eventually(() => (updatesOf(orderId).length > 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200)); // time for a wrong second event
    expect(updatesOf(orderId)).to.have.length(1);
  });

  it("cancels once under concurrent cancellations, returning the stock once", async () => {
    const orderId = await orderIn("CONFIRMED");
    expect(await stock()).to.equal(96);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => orders().updateOrderStatus({ orderId, status: "CANCELLED" })),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).to.have.length(1);
    expect(await stock()).to.equal(100);
    expect(releasesOf(network, orderId)).to.equal(1);
  });

  it("releases a cancelled order's stock exactly once, even when cancelled twice", async () => {
    const orderId = await orderIn("CONFIRMED");
    await orders().updateOrderStatus({ orderId, status: "CANCELLED" });
    expect(await codeOf(orders().updateOrderStatus({ orderId, status: "CANCELLED" }))).to.equal(
      Code.AlreadyExists,
    );
    await new Promise((resolve) => setTimeout(resolve, 200)); // several passes of the retry loop
    expect(releasesOf(network, orderId)).to.equal(1);
    expect(await stock()).to.equal(100);
  });

  it("still cancels while the Product service is down, and returns the stock once it is back", async () => {
    const orderId = await orderIn("CONFIRMED");
    network.fail(InventoryService.method.releaseStock);
    await orders().updateOrderStatus({ orderId, status: "CANCELLED" });
    expect(await statusOf(orderId)).to.equal("CANCELLED");
    await new Promise((resolve) => setTimeout(resolve, 150)); // the loop keeps failing meanwhile
    expect(await stock()).to.equal(96);
    network.restore();
    await eventually(
      async () => ((await stock()) === 100 ? true : undefined),
      5_000,
      "the stock to come back",
    );
    await new Promise((resolve) => setTimeout(resolve, 200)); // the marker is cleared: no more calls
    expect(releasesOf(network, orderId)).to.equal(1);
  });
});

describe("Order service: stock releases left pending by a previous run", () => {
  it("are finished by the next instance as soon as it starts", async () => {
    // Loops that would not run again during the test: only start-up can finish the release.
    const options = { releaseRetryIntervalMs: 600_000 };
    const { harness: first, network, pen } = await startOrders(options);
    try {
      const { orderId } = await first
        .client(OrderService, alice)
        .placeOrder({ items: [{ productId: pen, quantity: 4 }] });
      network.fail(InventoryService.method.releaseStock);
      await first.client(OrderService, admin).updateOrderStatus({ orderId, status: "CONFIRMED" });
      await first.client(OrderService, admin).updateOrderStatus({ orderId, status: "CANCELLED" });
      expect(await stockOf(first, pen)).to.equal(96);
      expect(releasesOf(network, orderId)).to.equal(0);
      network.restore();
      // A new Order instance on the same database and the same Product service, as after a
      // crash and restart.
      const second = await startServiceHarness((ctx) =>
        buildOrderService({ ...ctx, store: first.context.store, transport: network }, options),
      );
      try {
        await eventually(
          async () => ((await stockOf(first, pen)) === 100 ? true : undefined),
          5_000,
          "the stock to come back",
        );
        expect(releasesOf(network, orderId)).to.equal(1);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
