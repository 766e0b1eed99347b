/**
 * Test support: an order document as the Order service stores it (one pen at 19.99, CREATED),
 * which the owner migrations' specs write as the service or an older release would have.
 * `customerUserId` absent: an order from before owners were kept by id, or not backfilled yet.
 */
import { formatTimestamp } from "@commerce/runtime/time";
import type { OrderDocument } from "../order-store.js";

export interface StoredOrderFields {
  readonly customerUserId?: number;
  /** Epoch ms; now by default. */
  readonly placedAt?: number;
  readonly status?: OrderDocument["status"];
}

export function storedOrder(id: string, email: string, fields: StoredOrderFields = {}): OrderDocument {
  const placedAt = fields.placedAt ?? Date.now();
  return {
    _id: id,
    _v: 1,
    customerId: email,
    ...(fields.customerUserId === undefined ? {} : { customerUserId: fields.customerUserId }),
    status: fields.status ?? "CREATED",
    orderDate: formatTimestamp(new Date(placedAt)),
    placedAt,
    totalMinor: 1999,
    items: [{ productId: "prd_pen", quantity: 1, unitPriceMinor: 1999 }],
    stockReleasePending: false,
    outbox: [],
    outboxPending: false,
  };
}
