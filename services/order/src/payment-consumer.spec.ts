import { expect } from "chai";
import { type EventRecord, createEventFactory } from "@commerce/runtime/events";
import {
  eventually,
  startServiceHarness,
  type ServiceHarness,
  composeModules,
} from "@commerce/runtime/testing";
import {
  PaymentCreatedSchema,
  PaymentFailedSchema,
  PaymentSucceededSchema,
} from "@commerce/runtime/gen/commerce/events/v1/payment_events_pb.js";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { buildProductService } from "@commerce/product";
import { openOrderCollections } from "./order-store.js";
import { buildOrderService } from "./order-module.js";

const alice = { userId: 11, email: "alice@x.test", role: "CUSTOMER" as const };
const admin = { userId: 13, email: "root@x.test", role: "ADMIN" as const };
const payments = createEventFactory("/commerce/payment");

interface PaymentOf {
  readonly orderId: string;
  readonly customerId?: string;
  /** The owner's id the payment carries; 0 as an event published before the field existed. */
  readonly customerUserId?: number;
  /** Paise; 7996 (4 pens at 19.99) unless given. */
  readonly amountMinor?: bigint;
}

function paymentSucceeded({
  orderId,
  customerId = alice.email,
  customerUserId = alice.userId,
  amountMinor = 7996n,
}: PaymentOf): EventRecord {
  return payments.event(
    PaymentSucceededSchema,
    {
      paymentId: `pay_${orderId}`,
      orderId,
      customerId,
      customerUserId,
      amountMinor,
      providerPaymentId: "pay_X",
      paidAt: "",
    },
    `pay_${orderId}`,
  );
}

describe("Order service: payment-events consumer", () => {
  let harness: ServiceHarness;
  let events: EventRecord[];
  let pen: string;

  beforeEach(async () => {
    events = [];
    // The Order service with the real Product service it reserves stock from.
    harness = await startServiceHarness(async (ctx) =>
      composeModules(await buildProductService(ctx), await buildOrderService(ctx)),
    );
    const { ids } = await harness.client(ProductService, admin).bulkCreateProducts({
      products: [
        { name: "Pen", description: "", price: 19.99, stock: 1000, brand: "Acme", categoryId: "books" },
      ],
    });
    pen = ids[0] ?? "";
    events = await harness.recordEvents("order-events");
  });
  afterEach(() => harness.close());

  const orders = () => harness.client(OrderService, admin);
  const statusOf = async (orderId: string): Promise<string> => (await orders().getOrder({ orderId })).status;
  const updatesOf = (orderId: string): Record<string, unknown>[] =>
    events
      .filter((e) => e.type === "ORDER_STATUS_UPDATED" && e.subject === orderId)
      .map((e) => JSON.parse(e.data) as Record<string, unknown>);

  async function placed(): Promise<string> {
    const { orderId } = await harness
      .client(OrderService, alice)
      .placeOrder({ items: [{ productId: pen, quantity: 4 }] });
    return orderId;
  }

  function confirmed(orderId: string): Promise<true> {
    return eventually(
      async () => ((await statusOf(orderId)) === "CONFIRMED" ? true : undefined),
      5_000,
      `order ${orderId} to be confirmed`,
    );
  }

  /**
   * Publishes `records`, then the payment of a fresh order, and waits until that order is
   * confirmed: payment-events are consumed in order, so every record before it has been handled.
   */
  async function publishAndSettle(...records: EventRecord[]): Promise<void> {
    const marker = await placed();
    await harness.bus.publish([...records, paymentSucceeded({ orderId: marker })]);
    await confirmed(marker);
  }

  /**
   * Waits until every order event written so far has reached the spy: no order document holds
   * unpublished events, and a record published after them has been delivered.
   */
  async function spyCaughtUp(): Promise<void> {
    const { orders: stored } = await openOrderCollections(harness.context.store);
    await eventually(
      async () => ((await stored.count({ outboxPending: true })) === 0 ? true : undefined),
      5_000,
      "the outbox to drain",
    );
    const marker = { ...paymentSucceeded({ orderId: "ord_marker" }), topic: "order-events" };
    await harness.bus.publish([marker]);
    await eventually(() => (events.some((e) => e.id === marker.id) ? true : undefined), 5_000, "the marker");
  }

  it("confirms a CREATED order on PAYMENT_SUCCESS, publishing ORDER_STATUS_UPDATED", async () => {
    const orderId = await placed();
    await harness.bus.publish([paymentSucceeded({ orderId })]);
    await confirmed(orderId);
    await spyCaughtUp();
    expect(updatesOf(orderId)).to.have.length(1);
    expect(updatesOf(orderId)[0]).to.include({
      orderId,
      customerId: alice.email,
      customerUserId: alice.userId,
      previousStatus: "CREATED",
      status: "CONFIRMED",
      totalAmountMinor: "7996",
    });
  });

  it("confirms once however often the payment is delivered: no second event", async () => {
    const orderId = await placed();
    const paid = paymentSucceeded({ orderId });
    await publishAndSettle(paid, paid, paid);
    await publishAndSettle(paid); // redelivered later
    expect(await statusOf(orderId)).to.equal("CONFIRMED");
    await spyCaughtUp();
    expect(updatesOf(orderId)).to.have.length(1);
  });

  it("leaves an order an admin confirmed already as it is", async () => {
    const orderId = await placed();
    await orders().updateOrderStatus({ orderId, status: "CONFIRMED" });
    await publishAndSettle(paymentSucceeded({ orderId }));
    await spyCaughtUp();
    expect(updatesOf(orderId).map((u) => u["status"])).to.deep.equal(["CONFIRMED"]);
  });

  it("skips a CANCELLED order and an unknown order, and keeps consuming", async () => {
    const orderId = await placed();
    await orders().updateOrderStatus({ orderId, status: "CONFIRMED" });
    await orders().updateOrderStatus({ orderId, status: "CANCELLED" });
    await publishAndSettle(paymentSucceeded({ orderId }), paymentSucceeded({ orderId: "ord_unknown" }));
    expect(await statusOf(orderId)).to.equal("CANCELLED");
    await spyCaughtUp();
    expect(updatesOf(orderId).map((u) => u["status"])).to.deep.equal(["CONFIRMED", "CANCELLED"]);
    expect(updatesOf("ord_unknown")).to.deep.equal([]);
  });

  it("changes nothing on PAYMENT_CREATED and PAYMENT_FAILED", async () => {
    const orderId = await placed();
    const common = { paymentId: "pay_1", orderId, customerId: alice.email, amountMinor: 7996n };
    await publishAndSettle(
      payments.event(
        PaymentCreatedSchema,
        { ...common, currency: "INR", providerOrderId: "order_X" },
        "pay_1",
      ),
      payments.event(
        PaymentFailedSchema,
        { ...common, providerPaymentId: "pay_X", reason: "declined" },
        "pay_1",
      ),
    );
    expect(await statusOf(orderId)).to.equal("CREATED");
    await spyCaughtUp();
    expect(updatesOf(orderId)).to.deep.equal([]);
  });

  it("does not confirm an order on a payment by another customer, another account of the same email, or of another amount", async () => {
    const orderId = await placed();
    await publishAndSettle(
      paymentSucceeded({ orderId, customerId: "mallory@x.test" }),
      paymentSucceeded({ orderId, customerUserId: 21 }),
      paymentSucceeded({ orderId, amountMinor: 7995n }),
    );
    expect(await statusOf(orderId)).to.equal("CREATED");
  });

  it("confirms on a PAYMENT_SUCCESS published before payments carried the owner's id, by its email", async () => {
    const orderId = await placed();
    await harness.bus.publish([paymentSucceeded({ orderId, customerUserId: 0 })]);
    await confirmed(orderId);
  });
});
