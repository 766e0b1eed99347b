import { create } from "@bufbuild/protobuf";
import { expect } from "chai";
import {
  OrderLineItemSchema,
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "../../gen/commerce/events/v1/order_events_pb.js";
import type { EventRecord } from "./event-bus.js";
import { createEventFactory, eventContract, parseEventData } from "./event-factory.js";
import { PermanentEventError } from "./permanent-event-error.js";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("eventContract", () => {
  it("reads the type and topic from the payload message's option", () => {
    expect(eventContract(OrderPlacedSchema)).to.deep.equal({ type: "ORDER_PLACED", topic: "order-events" });
    expect(eventContract(OrderStatusUpdatedSchema)).to.deep.equal({
      type: "ORDER_STATUS_UPDATED",
      topic: "order-events",
    });
  });

  it("refuses a message that is not an event payload", () => {
    expect(() => eventContract(OrderLineItemSchema)).to.throw(
      "commerce.events.v1.OrderLineItem is not an event payload: it has no (commerce.options.v1.event)",
    );
  });
});

describe("createEventFactory", () => {
  const events = createEventFactory("/commerce/order");

  it("builds an outbox entry with CloudEvents attributes and the payload as protobuf JSON", () => {
    const before = Date.now();
    const entry = events.event(
      OrderPlacedSchema,
      {
        orderId: "o-1",
        customerId: "a@example.com",
        totalAmountMinor: 0n,
        items: [{ productId: "p-1", quantity: 2 }],
      },
      "o-1",
    );

    expect(entry.id).to.match(uuid);
    expect(Date.parse(entry.time)).to.be.within(before, Date.now());
    expect(entry.time).to.equal(new Date(entry.time).toISOString());
    expect({ ...entry, id: "", time: "" }).to.deep.equal({
      id: "",
      type: "ORDER_PLACED",
      source: "/commerce/order",
      time: "",
      subject: "o-1",
      topic: "order-events",
      data: '{"orderId":"o-1","customerId":"a@example.com","items":[{"productId":"p-1","quantity":2,"priceMinor":"0"}],"orderDate":"","totalAmountMinor":"0","customerUserId":0}',
    });
    expect(entry).to.not.have.property("traceparent");
  });

  it("makes a fresh id per event, and names no cause (the write that records it does: event-cause.ts)", () => {
    const first = events.event(OrderPlacedSchema, create(OrderPlacedSchema, { orderId: "o-1" }), "o-1");
    const second = events.event(OrderPlacedSchema, { orderId: "o-1" }, "o-1");
    expect(first.id).to.match(uuid);
    expect(second.id).to.not.equal(first.id);
    expect(first).to.not.have.property("traceparent");
  });

  it("refuses a payload without the event option and an empty subject", () => {
    expect(() => events.event(OrderLineItemSchema, { productId: "p-1" }, "p-1")).to.throw(
      "commerce.events.v1.OrderLineItem is not an event payload: it has no (commerce.options.v1.event)",
    );
    expect(() => events.event(OrderPlacedSchema, { orderId: "o-1" }, "")).to.throw(
      TypeError,
      "ORDER_PLACED: the subject (aggregate id) must not be empty",
    );
    expect(() => createEventFactory("")).to.throw(TypeError, "an event source must not be empty");
  });
});

describe("parseEventData", () => {
  const events = createEventFactory("/commerce/order");
  const placed = events.event(
    OrderPlacedSchema,
    {
      orderId: "o-1",
      customerId: "a@example.com",
      totalAmountMinor: 1250n,
      orderDate: "2024-05-01T10:00:00",
    },
    "o-1",
  );

  function failure(record: EventRecord): PermanentEventError | undefined {
    try {
      parseEventData(OrderPlacedSchema, record);
    } catch (error) {
      if (error instanceof PermanentEventError) return error;
      throw error;
    }
    return undefined;
  }

  it("returns the payload of an event of the schema's type", () => {
    const payload = parseEventData(OrderPlacedSchema, placed);

    expect(payload.orderId).to.equal("o-1");
    expect(payload.customerId).to.equal("a@example.com");
    expect(payload.totalAmountMinor).to.equal(1250n);
    expect(payload.orderDate).to.equal("2024-05-01T10:00:00");
    expect(payload.items).to.deep.equal([]);
  });

  it("ignores fields a newer producer added", () => {
    const payload = parseEventData(OrderPlacedSchema, {
      ...placed,
      data: '{"orderId":"o-2","couponCode":"X"}',
    });
    expect(payload.orderId).to.equal("o-2");
  });

  it("throws PermanentEventError for another type or unreadable data", () => {
    expect(failure({ ...placed, type: "ORDER_STATUS_UPDATED" })?.message).to.equal(
      `event ${placed.id} has type ORDER_STATUS_UPDATED, expected ORDER_PLACED`,
    );
    expect(failure({ ...placed, data: "{not json" })?.message).to.equal(
      `event ${placed.id} (ORDER_PLACED) has unreadable data`,
    );
    expect(failure({ ...placed, data: '{"totalAmountMinor":"lots"}' })?.message).to.equal(
      `event ${placed.id} (ORDER_PLACED) has unreadable data`,
    );
  });
});
