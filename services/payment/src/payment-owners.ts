/**
 * The owners of the payments created before owners were kept by id (ADR 0101): a payment is its
 * order's owner's, so each such payment asks the Order service for its order's owner
 * (`GetPayableOrder`). An order the Order service does not know the owner of yet (its own
 * backfill has not reached it) leaves the payment for a later pass; an order it does not find
 * (never written) gives nobody (0).
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { RecordedCollection } from "@commerce/runtime/events";
import { patientPeerCall } from "@commerce/runtime/resilience";
import { unchanged, type FieldBackfill } from "@commerce/runtime/store";
import type { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import type { PaymentDocument } from "./payment-store.js";

export function paymentOwners(
  payments: RecordedCollection<PaymentDocument>,
  orders: Client<typeof PayableOrderService>,
): FieldBackfill<PaymentDocument, number> {
  /** The user id of the order's owner; undefined while the Order service does not know it. */
  async function ownerOf(orderId: string, signal: AbortSignal): Promise<number | undefined> {
    try {
      const order = await patientPeerCall(
        (callSignal) =>
          orders.getPayableOrder({ orderId }, callSignal === undefined ? {} : { signal: callSignal }),
        { signal },
      );
      return order.customerUserId;
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) return 0;
      throw error;
    }
  }

  return {
    description: "the owner's user id of every payment created before owners were kept by id",
    collection: payments,
    field: "customerUserId",
    async decide(batch, signal) {
      const owners: (number | undefined)[] = [];
      for (const payment of batch) owners.push(await ownerOf(payment.orderId, signal));
      return owners;
    },
    async write(payment, customerUserId, signal) {
      await payments.change(
        payment._id,
        (current) =>
          current.customerUserId !== undefined ? unchanged : { next: { ...current, customerUserId } },
        signal,
      );
    },
  };
}
