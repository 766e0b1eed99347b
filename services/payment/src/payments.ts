/**
 * The Payment domain (ADR 0049).
 *
 * Create, step by step:
 *   1. the amount has at most two decimals (400);
 *   2. the order, from the Order service: it exists (404), is the caller's account's (its owner's
 *      user id: 403; 503 while an older order's owner is not known yet), is CREATED and not paid
 *      already (409), and its total is the amount to the paisa (400);
 *   3. an open payment for the order (CREATED or FAILED) is reused: the same gateway order,
 *      the same answer, no new event;
 *   4. otherwise a gateway order, created with the payment id as its idempotency key;
 *   5. the payment record, with PAYMENT_CREATED in its outbox, in one insert.
 * The payment id is derived from the order id, so concurrent or retried creates (a crash
 * between the gateway's answer and the insert included) converge on one record and one
 * gateway order.
 *
 * Callback: the webhook signature over the raw body (401 when missing or wrong, nothing
 * changes), then the body, then the payment by its gateway order, then one compare-and-set
 * that moves it and records its event: a callback whose provider payment is recorded already is
 * a repeat and changes nothing. Compare-and-set is atomic on every backend (on FerretDB the
 * version is claimed by a unique insert), so of 20 identical callbacks exactly one moves it.
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  conflict,
  forbidden,
  invalid,
  notFound,
  unauthenticated,
  unavailable,
} from "@commerce/runtime/errors";
import type { EventFactory, RecordedCollection } from "@commerce/runtime/events";
import type { Caller } from "@commerce/runtime/identity";
import type { Logger } from "@commerce/runtime/logging";
import { minorUnitsFromWire, toMinorUnits } from "@commerce/runtime/money";
import { unchanged, type Collection, insertOnce } from "@commerce/runtime/store";
import { createSequenceTime, formatTimestamp, type Clock } from "@commerce/runtime/time";
import {
  PaymentCreatedSchema,
  PaymentFailedSchema,
  PaymentSucceededSchema,
} from "@commerce/runtime/gen/commerce/events/v1/payment_events_pb.js";
import type {
  GetPayableOrderResponse,
  PayableOrderService,
} from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { parseCallbackBody } from "./callback-body.js";
import type { PaymentGateway } from "./gateway/payment-gateway.js";
import { isValidPaymentSignature, isValidWebhookSignature } from "./gateway/signatures.js";
import type { PaymentMetrics } from "./payment-metrics.js";
import { paymentIdOf, type GatewayOrderDocument, type PaymentDocument } from "./payment-store.js";

export interface PaymentSecrets {
  readonly keySecret: string;
  readonly webhookSecret: string;
}

export interface Payments {
  /** The payment record whose gateway order the customer pays (new or reused). */
  createPayment(
    caller: Caller,
    orderId: string,
    amount: number,
    signal: AbortSignal,
  ): Promise<PaymentDocument>;
  /** The payment whose gateway order is `providerOrderId`, if we opened it. */
  byGatewayOrder(providerOrderId: string, signal: AbortSignal): Promise<PaymentDocument | undefined>;
  /** The caller's account's payments, newest first. */
  listMyPayments(caller: Caller, signal: AbortSignal): Promise<PaymentDocument[]>;
  /** Processes a signed callback; answers what happened, for the gateway's log. */
  handleCallback(rawBody: Uint8Array, signature: string | null, signal: AbortSignal): Promise<string>;
}

export interface PaymentsDeps {
  readonly payments: RecordedCollection<PaymentDocument>;
  readonly gatewayOrders: Collection<GatewayOrderDocument>;
  readonly orders: Client<typeof PayableOrderService>;
  readonly gateway: PaymentGateway;
  readonly secrets: PaymentSecrets;
  readonly currency: string;
  readonly events: EventFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: PaymentMetrics;
}

/** The answers of a callback that was accepted (200). */
export const callbackMessages = {
  processed: "callback processed",
  repeated: "callback already processed",
  unknownOrder: "callback ignored: unknown gateway order",
} as const;

const newestFirst = [
  { field: "createdAtMs", direction: -1 },
  { field: "_id", direction: -1 },
] as const;

export function createPayments(deps: PaymentsDeps): Payments {
  const { payments, logger } = deps;
  /** "Newest first" is exact for payments created back to back. */
  const creationTime = createSequenceTime();

  async function payableOrder(orderId: string, signal: AbortSignal): Promise<GetPayableOrderResponse> {
    try {
      return await deps.orders.getPayableOrder({ orderId }, { signal });
    } catch (error) {
      if (ConnectError.from(error).code === Code.NotFound) throw notFound("order not found");
      throw unavailable("the order service is unavailable; retry", error);
    }
  }

  /**
   * Links gateway order `providerOrderId` to payment `paymentId`, before the payment is written.
   * A retried create links it again (the same pair: nothing to do); a gateway that answered the
   * same order for another payment is broken, and its order is not used.
   */
  async function linkGatewayOrder(
    providerOrderId: string,
    paymentId: string,
    signal: AbortSignal,
  ): Promise<void> {
    const link: GatewayOrderDocument = { _id: providerOrderId, paymentId };
    const outcome = await insertOnce({
      insert: async () => {
        await deps.gatewayOrders.insert(link, signal);
        return link;
      },
      read: () => deps.gatewayOrders.get(providerOrderId, signal),
      isOurs: (linked) => linked.paymentId === paymentId,
    });
    switch (outcome.kind) {
      case "inserted":
      case "ours":
        return;
      case "theirs":
        throw new Error(`gateway order ${providerOrderId} is linked to another payment already`, {
          cause: outcome.error,
        });
      default:
        throw outcome.error;
    }
  }

  async function byGatewayOrder(
    providerOrderId: string,
    signal: AbortSignal,
  ): Promise<PaymentDocument | undefined> {
    const link = await deps.gatewayOrders.get(providerOrderId, signal);
    return link === undefined ? undefined : payments.get(link.paymentId, signal);
  }

  return {
    byGatewayOrder,

    async createPayment(caller, orderId, amount, signal) {
      const amountMinor = toMinorUnits(amount);
      if (amountMinor === undefined) throw invalid("amount: must have at most two decimals");
      const order = await payableOrder(orderId, signal);
      // The owner by id (ADR 0100); an order from before owners by id may not know it yet.
      const owner = order.customerUserId;
      if (owner === undefined) throw unavailable("the order's owner is not known yet; retry");
      if (owner !== caller.userId) throw forbidden("this order belongs to another customer");
      const paymentId = paymentIdOf(order.orderId);
      const existing = await payments.get(paymentId, signal);
      if (existing?.status === "SUCCESS") throw conflict("this order is paid already");
      if (order.status !== "CREATED") throw conflict(`an order in status ${order.status} cannot be paid`);
      const totalMinor = minorUnitsFromWire(order.totalMinor);
      if (amountMinor !== totalMinor) throw invalid("amount: must equal the order's total");
      if (existing !== undefined) return existing; // open: the customer pays the same gateway order

      const gatewayOrder = await deps.gateway.createOrder(
        { amountMinor, currency: deps.currency, receipt: paymentId, idempotencyKey: paymentId },
        signal,
      );
      await linkGatewayOrder(gatewayOrder.id, paymentId, signal);
      const now = deps.clock();
      const created = deps.events.event(
        PaymentCreatedSchema,
        {
          paymentId,
          orderId: order.orderId,
          customerId: order.customerId,
          customerUserId: owner,
          currency: deps.currency,
          providerOrderId: gatewayOrder.id,
          amountMinor: BigInt(amountMinor),
        },
        paymentId,
      );
      const outcome = await insertOnce({
        insert: () =>
          payments.insert(
            {
              _id: paymentId,
              orderId: order.orderId,
              customerId: order.customerId,
              customerUserId: owner,
              amountMinor,
              currency: deps.currency,
              providerOrderId: gatewayOrder.id,
              status: "CREATED",
              createdAt: formatTimestamp(now),
              createdAtMs: creationTime(now),
              providerPaymentIds: [],
              paidBy: "",
            },
            [created],
            signal,
          ),
        read: () => payments.get(paymentId),
        // A concurrent create for the same order (the same gateway order: same key), or this
        // insert landing with its answer lost: either way the stored payment is the answer.
        isOurs: () => true,
      });
      switch (outcome.kind) {
        case "inserted":
          deps.metrics.paymentReached("CREATED");
          return outcome.doc;
        case "ours":
          // Counted by the create that won, or not at all when the answer was lost.
          return outcome.doc;
        default:
          throw unavailable("the payment could not be stored; retry", outcome.error);
      }
    },

    listMyPayments(caller, signal) {
      return payments.find({ customerUserId: caller.userId }, { sort: newestFirst, signal });
    },

    async handleCallback(rawBody, signature, signal) {
      if (!isValidWebhookSignature(rawBody, signature, deps.secrets.webhookSecret)) {
        throw unauthenticated("invalid or missing payment signature");
      }
      const callback = parseCallbackBody(rawBody);
      const payment = await byGatewayOrder(callback.providerOrderId, signal);
      if (payment === undefined) {
        // Not an order we opened (or not one we answered for): retrying cannot change that.
        logger.warn(
          { providerOrderId: callback.providerOrderId, signal },
          "callback for an unknown gateway order",
        );
        return callbackMessages.unknownOrder;
      }
      // Checked against the gateway order we stored, not the one the body names.
      const paid = isValidPaymentSignature(
        payment.providerOrderId,
        callback.providerPaymentId,
        callback.providerSignature,
        deps.secrets.keySecret,
      );
      const outcome = await payments.change(
        payment._id,
        (current) => {
          if (current.providerPaymentIds.includes(callback.providerPaymentId)) return unchanged;
          if (current.status === "SUCCESS") return unchanged; // paid is final
          const ids = [...current.providerPaymentIds, callback.providerPaymentId];
          const common = {
            paymentId: current._id,
            orderId: current.orderId,
            customerId: current.customerId,
            customerUserId: current.customerUserId ?? 0,
            providerPaymentId: callback.providerPaymentId,
            amountMinor: BigInt(current.amountMinor),
          };
          if (paid) {
            const paidAt = formatTimestamp(deps.clock());
            return {
              next: {
                ...current,
                status: "SUCCESS",
                providerPaymentIds: ids,
                paidBy: callback.providerPaymentId,
              },
              events: [deps.events.event(PaymentSucceededSchema, { ...common, paidAt }, current._id)],
            };
          }
          return {
            next: { ...current, status: "FAILED", providerPaymentIds: ids },
            events: [
              deps.events.event(
                PaymentFailedSchema,
                { ...common, reason: "the payment signature did not verify" },
                current._id,
              ),
            ],
          };
        },
        signal,
      );
      if (outcome === undefined) throw unavailable("the payment disappeared; retry");
      if (outcome.changed) {
        deps.metrics.paymentReached(outcome.doc.status);
        logger.info(
          { paymentId: payment._id, status: outcome.doc.status, signal },
          "payment callback processed",
        );
        return callbackMessages.processed;
      }
      if (paid && outcome.doc.paidBy !== callback.providerPaymentId) {
        // A second captured payment for a paid order: the money must go back by hand.
        logger.error(
          {
            paymentId: payment._id,
            providerPaymentId: callback.providerPaymentId,
            paidBy: outcome.doc.paidBy,
            signal,
          },
          "a second successful payment for a paid order; refund it at the gateway",
        );
      }
      return callbackMessages.repeated;
    },
  };
}
