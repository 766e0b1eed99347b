/**
 * What the Order service stores, in its own database: one document per order, carrying its
 * lines, its events (outbox) and the marker of a stock return still owed to the Product
 * service.
 */
import { randomBytes } from "node:crypto";
import type { OutboxCarrier } from "@commerce/runtime/events";
import type { Collection, CollectionSpec, DocumentStore } from "@commerce/runtime/store";
import type { OrderStatus } from "./order-status.js";

/** One line of an order: the unit price is the product's price when the order was placed. */
export interface OrderItem {
  readonly productId: string;
  readonly quantity: number;
  readonly unitPriceMinor: number;
}

/**
 * ABANDONED marks an id whose order could not be written: a placement whose insert failed
 * writes this tombstone under the same `_id`, so the original insert can never land later
 * (the unique `_id` decides) and the reserved stock can be released safely. Abandoned
 * documents are invisible: every read treats them as absent.
 */
export type StoredOrderStatus = OrderStatus | "ABANDONED";

export interface OrderDocument extends OutboxCarrier {
  /** Opaque: `ord_` and 22 random base64url characters. */
  readonly _id: string;
  /** The owner's email when the order was placed: the contract's `customerId`, shown only. */
  readonly customerId: string;
  /**
   * The owner: the user id of the account that placed it, which every read and write checks
   * (ADR 0100). 0: nobody (an order from before owners were kept by id whose owner could not be
   * established; only admins reach it). Absent only on an order written before, until the
   * owner backfill gives it one (order-owners.ts).
   */
  readonly customerUserId?: number;
  readonly status: StoredOrderStatus;
  /** UTC wall clock, YYYY-MM-DDTHH:MM:SS. */
  readonly orderDate: string;
  /**
   * Epoch milliseconds of placement, with a fraction that orders placements within one
   * millisecond: the "newest first" order of the listings.
   */
  readonly placedAt: number;
  readonly totalMinor: number;
  readonly items: readonly OrderItem[];
  /**
   * Set in the same write that cancels the order, cleared once the Product service released
   * the order's stock; a background loop finishes what a crash or an outage left pending.
   */
  readonly stockReleasePending: boolean;
}

export interface OrderCollections {
  readonly orders: Collection<OrderDocument>;
}

const ordersSpec: CollectionSpec<OrderDocument> = {
  name: "orders",
  indexes: [
    { fields: ["customerUserId"] },
    { fields: ["outboxPending"] },
    { fields: ["stockReleasePending"] },
  ],
};

export async function openOrderCollections(store: DocumentStore): Promise<OrderCollections> {
  return { orders: await store.collection(ordersSpec) };
}

/** A new opaque order id: 128 random bits, so ids can be neither guessed nor enumerated. */
export function newOrderId(): string {
  return `ord_${randomBytes(16).toString("base64url")}`;
}
