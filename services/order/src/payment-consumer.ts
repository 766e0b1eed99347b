/**
 * Consumes payment-events (ADR 0044): PAYMENT_SUCCESS confirms the paid order, CREATED →
 * CONFIRMED, through the same compare-and-set move an admin makes (`Orders.updateStatus`), so
 * ORDER_STATUS_UPDATED rides in the same write. PAYMENT_CREATED and PAYMENT_FAILED change
 * nothing: an unpaid order stays CREATED and can be paid again.
 *
 * Idempotent by the order's state, which only moves forward: a redelivered PAYMENT_SUCCESS
 * finds the order CONFIRMED and leaves it (no second event). An order that is CANCELLED, or
 * unknown, or that the payment does not match (another customer, another amount), is logged
 * and skipped, never failed: retrying could not change the answer.
 */
import { type EventHandler, eventContract, parseEventData, type EventLogger } from "@commerce/runtime/events";
import { DomainError } from "@commerce/runtime/errors";
import {
  PaymentSucceededSchema,
  type PaymentSucceeded,
} from "@commerce/runtime/gen/commerce/events/v1/payment_events_pb.js";
import type { OrderDocument } from "./order-store.js";
import type { Orders } from "./orders.js";

export const paymentTopic = eventContract(PaymentSucceededSchema).topic;

export function createPaymentConsumer(orders: Orders, logger: EventLogger): EventHandler {
  const { type } = eventContract(PaymentSucceededSchema);

  /** The live order, or undefined (logged) when there is none. */
  async function orderOf(payment: PaymentSucceeded, signal: AbortSignal): Promise<OrderDocument | undefined> {
    try {
      return await orders.getPayableOrder(payment.orderId, signal);
    } catch (error) {
      if (!(error instanceof DomainError && error.kind === "not_found")) throw error;
      logger.warn(
        { orderId: payment.orderId, paymentId: payment.paymentId, signal },
        "PAYMENT_SUCCESS for an unknown order; skipped",
      );
      return undefined;
    }
  }

  /** True when the order is CREATED and the payment is for it; otherwise logs why not. */
  function confirmable(order: OrderDocument, payment: PaymentSucceeded, signal: AbortSignal): boolean {
    const fields = { orderId: order._id, paymentId: payment.paymentId, status: order.status, signal };
    // Both in minor units: exact, no rounding between what was paid and what is owed.
    // An event published before it carried the owner's id (0), or an order not backfilled yet,
    // is matched by the email alone.
    const otherOwner =
      payment.customerUserId !== 0 &&
      order.customerUserId !== undefined &&
      payment.customerUserId !== order.customerUserId;
    if (
      order.customerId !== payment.customerId ||
      otherOwner ||
      payment.amountMinor !== BigInt(order.totalMinor)
    ) {
      logger.error(
        { ...fields, amountMinor: String(payment.amountMinor), totalMinor: order.totalMinor },
        "PAYMENT_SUCCESS does not match its order (customer or amount); not confirmed",
      );
      return false;
    }
    if (order.status === "CONFIRMED") return false; // confirmed already: a redelivery, or the admin
    if (order.status !== "CREATED") {
      logger.warn(fields, "PAYMENT_SUCCESS for an order that cannot be confirmed; skipped");
      return false;
    }
    return true;
  }

  return async (record, signal) => {
    if (record.type !== type) return; // PAYMENT_CREATED, PAYMENT_FAILED: nothing to do
    const payment = parseEventData(PaymentSucceededSchema, record);
    const order = await orderOf(payment, signal);
    if (order === undefined || !confirmable(order, payment, signal)) return;
    try {
      await orders.updateStatus(order._id, "CONFIRMED", signal);
      logger.info(
        { orderId: order._id, paymentId: payment.paymentId, signal },
        "order confirmed by its payment",
      );
    } catch (error) {
      if (!(error instanceof DomainError && error.kind === "conflict")) throw error;
      // Moved meanwhile (an admin confirmed or cancelled it): judge the status that is there now.
      const now = await orderOf(payment, signal);
      if (now?.status === "CREATED") throw error; // only lost races: retry with backoff
      if (now !== undefined) confirmable(now, payment, signal);
    }
  };
}
