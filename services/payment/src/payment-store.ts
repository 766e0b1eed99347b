/**
 * What the Payment service stores, in its own database: one document per paid order, carrying
 * its gateway order, its status, the provider payments its callbacks reported, and its events
 * (outbox).
 */
import { createHash } from "node:crypto";
import type { OutboxCarrier } from "@commerce/runtime/events";
import type { Collection, CollectionSpec, DocumentStore } from "@commerce/runtime/store";

/**
 * CREATED: the gateway order is open, nothing paid yet. SUCCESS: paid (final). FAILED: the last
 * attempt at the checkout failed; the customer may pay the same gateway order again, which
 * moves it to SUCCESS (ADR 0051).
 */
export type PaymentStatus = "CREATED" | "SUCCESS" | "FAILED";

export interface PaymentDocument extends OutboxCarrier {
  /** `pay_` and 22 base64url characters derived from the order id: one payment per order. */
  readonly _id: string;
  readonly orderId: string;
  /** The email of the order's owner, shown only. */
  readonly customerId: string;
  /**
   * The payment's owner: the user id of the order's owner, which every read and the sandbox
   * checkout check (ADR 0100). 0: nobody (the order has none). Absent only on a payment created
   * before owners were kept by id, until the owner backfill gives it its order's
   * (payment-owners.ts).
   */
  readonly customerUserId?: number;
  readonly amountMinor: number;
  readonly currency: string;
  /** The gateway's order, unique: a callback finds its payment by it. */
  readonly providerOrderId: string;
  readonly status: PaymentStatus;
  /** UTC wall clock, YYYY-MM-DDTHH:MM:SS. */
  readonly createdAt: string;
  /** Epoch milliseconds: the "newest first" order of the listing. */
  readonly createdAtMs: number;
  /**
   * Every provider payment a callback reported, in arrival order: a callback naming one of them
   * again is a repeat and changes nothing. Only the gateway can add to it (its callbacks are
   * signed), one entry per checkout attempt.
   */
  readonly providerPaymentIds: readonly string[];
  /** The provider payment that paid it; "" until SUCCESS. */
  readonly paidBy: string;
}

/**
 * Which payment a gateway order belongs to, keyed by the gateway's order id: a callback finds
 * its payment by two reads by `_id`. (A query on the payments' `providerOrderId` index would do
 * the same on MongoDB, but FerretDB 1.24 scans the collection for it: ADR 0051.)
 * Written before the payment, and never changed.
 */
export interface GatewayOrderDocument {
  /** The gateway's order id. */
  readonly _id: string;
  readonly paymentId: string;
}

export interface PaymentCollections {
  readonly payments: Collection<PaymentDocument>;
  readonly gatewayOrders: Collection<GatewayOrderDocument>;
}

const paymentsSpec: CollectionSpec<PaymentDocument> = {
  name: "payments",
  indexes: [
    { fields: ["customerUserId"] },
    { fields: ["providerOrderId"], unique: true },
    { fields: ["outboxPending"] },
  ],
};

const gatewayOrdersSpec: CollectionSpec<GatewayOrderDocument> = {
  name: "payment_gateway_orders",
  indexes: [],
};

export async function openPaymentCollections(store: DocumentStore): Promise<PaymentCollections> {
  return {
    payments: await store.collection(paymentsSpec),
    gatewayOrders: await store.collection(gatewayOrdersSpec),
  };
}

/**
 * The payment id of order `orderId`. Deterministic, so that concurrent or retried creates for
 * one order agree on one record (the unique `_id` decides) and on one gateway order (it is the
 * gateway's idempotency key).
 */
export function paymentIdOf(orderId: string): string {
  return `pay_${createHash("sha256").update(`payment:${orderId}`).digest("base64url").slice(0, 22)}`;
}
