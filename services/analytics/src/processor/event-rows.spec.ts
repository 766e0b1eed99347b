import { expect } from "chai";
import { type EventRecord, PermanentEventError } from "@commerce/runtime/events";
import { orderStatuses as orderServiceStatuses } from "@commerce/order";
import { orderStatuses } from "../order-statuses.js";
import {
  deleted,
  loggedIn,
  paid,
  paymentCreated,
  paymentFailed,
  placed,
  productCreated,
  registered,
  statusUpdated,
} from "../testing/analytics-events.js";
import { analyticsRowOf } from "./event-rows.js";

function poisonOf(record: EventRecord): string {
  try {
    analyticsRowOf(record);
  } catch (error) {
    expect(error).to.be.instanceOf(PermanentEventError);
    return (error as Error).message;
  }
  throw new Error("expected the record to be refused");
}

/** `record` with its payload's `field` set to `value`. */
function withField(record: EventRecord, field: string, value: unknown): EventRecord {
  return { ...record, data: JSON.stringify({ ...(JSON.parse(record.data) as object), [field]: value }) };
}

describe("analyticsRowOf", () => {
  it("maps each event a figure reads to one row of its family's table, every column written", () => {
    const user = registered(7, "2026-02-03T04:05:06");
    expect(analyticsRowOf(user)).to.deep.equal({
      family: "users",
      occurredAt: new Date("2026-02-03T04:05:06Z"),
      row: {
        event_id: user.id,
        event_type: "USER_REGISTERED",
        user_id: 7,
        occurred_at: new Date("2026-02-03T04:05:06Z"),
      },
    });
    expect(analyticsRowOf(deleted(7, "2026-02-04T00:00:00"))?.row).to.include({
      event_type: "USER_DELETED",
      user_id: 7,
    });
    const order = placed("ord_1", 5997n, "2026-02-03T23:59:59");
    expect(analyticsRowOf(order)).to.deep.equal({
      family: "orders",
      occurredAt: new Date("2026-02-03T23:59:59Z"),
      row: {
        event_id: order.id,
        event_type: "ORDER_PLACED",
        order_id: "ord_1",
        status: "CREATED",
        previous_status: "",
        total_amount_minor: 5997n,
        occurred_at: new Date("2026-02-03T23:59:59Z"),
      },
    });
    expect(analyticsRowOf(statusUpdated("ord_1", "CREATED", "CONFIRMED"))?.row).to.include({
      status: "CONFIRMED",
      previous_status: "CREATED",
    });
    expect(analyticsRowOf(statusUpdated("ord_1", "CONFIRMED", "CANCELLED"))?.row).to.include({
      status: "CANCELLED",
      previous_status: "CONFIRMED",
    });
    const payment = paid("pm_1", "ord_1", 9_007_199_254_740_993n, "2026-02-04T00:00:00");
    expect(analyticsRowOf(payment)).to.deep.equal({
      family: "payments",
      occurredAt: new Date("2026-02-04T00:00:00Z"),
      row: {
        event_id: payment.id,
        event_type: "PAYMENT_SUCCESS",
        payment_id: "pm_1",
        order_id: "ord_1",
        amount_minor: 9_007_199_254_740_993n,
        occurred_at: new Date("2026-02-04T00:00:00Z"),
      },
    });
  });

  it("gives no row for the types no figure reads", () => {
    for (const record of [
      loggedIn(7),
      paymentCreated("pm_1", "ord_1", 100n),
      paymentFailed("pm_1", "ord_1", 100n),
      productCreated("p1"),
      { ...registered(7), type: "SOMETHING_NEW" },
    ]) {
      expect(analyticsRowOf(record), record.type).to.equal(undefined);
    }
  });

  it("refuses, as permanent, an event it cannot place", () => {
    const order = placed("ord_1", 100n);
    expect(poisonOf({ ...order, data: "{not json" })).to.match(/has unreadable data/);
    expect(poisonOf(withField(order, "orderId", ""))).to.match(/has no orderId$/);
    expect(poisonOf(withField(order, "orderDate", "2026-02-30T10:00:00"))).to.match(
      /has no readable orderDate: "2026-02-30T10:00:00"/,
    );
    expect(poisonOf(withField(order, "orderDate", "2026-02-03 10:00:00"))).to.match(/has no readable/);
    expect(poisonOf(withField(order, "orderDate", "1970-01-01T00:00:00"))).to.match(/outside the years/);
    expect(poisonOf(statusUpdated("ord_1", "CONFIRMED", "SHIPPED"))).to.match(
      /unknown order status "SHIPPED"/,
    );
    expect(poisonOf(statusUpdated("ord_1", "", "CONFIRMED"))).to.match(/unknown previous order status ""/);
    expect(poisonOf(withField(paid("pm_1", "ord_1", 100n), "paidAt", ""))).to.match(/has no readable paidAt/);
    expect(poisonOf(withField(paid("pm_1", "ord_1", 100n), "amountMinor", "-1"))).to.match(/negative/);
    expect(poisonOf(withField(registered(7), "userId", 0))).to.match(/has no user id/);
  });

  it("counts the statuses of the Order service's state machine", () => {
    expect(orderStatuses).to.deep.equal(orderServiceStatuses);
  });
});
