import { expect } from "chai";
import { createEventFactory, PermanentEventError, type EventRecord } from "@commerce/runtime/events";
import { UserLoginSchema } from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import { purchaseFactOf, purchaseTopics } from "./purchase-facts.js";

const orders = createEventFactory("/commerce/order");

function placement(customerId: string, productIds: readonly string[], customerUserId = 7): EventRecord {
  return orders.event(
    OrderPlacedSchema,
    {
      orderId: "o1",
      customerId,
      customerUserId,
      items: productIds.map((productId) => ({ productId, quantity: 2, priceMinor: 100n })),
      orderDate: "2026-11-20T10:00:00",
      totalAmountMinor: 200n,
    },
    "o1",
  );
}

function statusUpdate(status: string): EventRecord {
  return orders.event(
    OrderStatusUpdatedSchema,
    {
      orderId: "o1",
      customerId: "ann@x.test",
      customerUserId: 7,
      previousStatus: "CREATED",
      status,
      updatedAt: "2026-11-20T11:00:00",
      totalAmountMinor: 200n,
    },
    "o1",
  );
}

const unreadable = (record: EventRecord): unknown => {
  try {
    purchaseFactOf(record);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe("purchaseFactOf", () => {
  it("reads a placement as its owner's account, its lower-cased email and its distinct products, in order, to the second", () => {
    const record = { ...placement("Ann@X.test", ["b", "a", "b"]), time: "2026-11-20T10:00:00.987Z" };
    expect(purchaseFactOf(record)).to.deep.equal({
      kind: "placed",
      customer: "7",
      email: "ann@x.test",
      orderId: "o1",
      products: ["a", "b"],
      at: new Date("2026-11-20T10:00:00.000Z"),
    });
  });

  it("reads only a move to CANCELLED among status updates", () => {
    expect(purchaseFactOf(statusUpdate("CANCELLED"))).to.deep.equal({
      kind: "cancelled",
      customer: "7",
      email: "ann@x.test",
      orderId: "o1",
    });
    expect(purchaseFactOf(statusUpdate("CONFIRMED"))).to.equal(undefined);
  });

  it("reads a placement published before events carried the owner's id as nobody's", () => {
    const fact = purchaseFactOf(placement("ann@x.test", ["a"], 0));
    expect(fact).to.deep.include({ kind: "placed", customer: "", email: "ann@x.test" });
  });

  it("reads nothing from an event type it does not use", () => {
    const login = createEventFactory("/commerce/auth").event(
      UserLoginSchema,
      { userId: 1, email: "ann@x.test", loggedInAt: "2026-11-20T10:00:00" },
      "1",
    );
    expect(purchaseFactOf(login)).to.equal(undefined);
  });

  it("refuses for good a placement without items, without an email or with an unreadable time", () => {
    for (const record of [
      placement("ann@x.test", []),
      placement("", ["a"]),
      placement("ann@x.test", [""]),
      { ...placement("ann@x.test", ["a"]), time: "yesterday" },
      { ...placement("ann@x.test", ["a"]), data: "{not json" },
    ]) {
      expect(unreadable(record)).to.be.instanceOf(PermanentEventError);
    }
  });

  it("consumes the order, product and account topics", () => {
    expect([...purchaseTopics].sort()).to.deep.equal(["auth-events", "order-events", "product-events"]);
  });
});
