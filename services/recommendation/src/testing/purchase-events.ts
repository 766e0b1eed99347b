/**
 * Test support: the events the Recommendation service consumes, as the services publish them,
 * built from the real payload messages, for its specs and its bench. Amounts are minor units;
 * every product costs 1.00. A customer is named by email; its account's user id is
 * `testUserId(email)` unless given.
 */
import { createEventFactory, type EventRecord } from "@commerce/runtime/events";
import { UserDeletedSchema } from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import {
  ProductCreatedSchema,
  ProductDeletedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";
import { customerKey } from "../purchase-facts.js";

const orders = createEventFactory("/commerce/order");
const catalog = createEventFactory("/commerce/product");
const accounts = createEventFactory("/commerce/auth");

/**
 * The user id the helpers give the account of `email` (case aside): FNV-1a of it, so that every
 * process of a test (and the bench) agrees without a registry.
 */
export function testUserId(email: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(email.trim().toLowerCase())) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash === 0 ? 1 : hash;
}

/** How the service keys the customer of `email` (its `customerKey`). */
export const customerOf = (email: string): string => customerKey(testUserId(email));

export function listed(productId: string, categoryId: string): EventRecord {
  return catalog.event(
    ProductCreatedSchema,
    {
      productId,
      name: productId,
      stock: 10,
      brand: "B",
      categoryId,
      sku: `SKU-${productId}`,
      priceMinor: 100n,
    },
    productId,
  );
}

export function delisted(productId: string): EventRecord {
  return catalog.event(ProductDeletedSchema, { productId, name: productId }, productId);
}

export function placed(
  orderId: string,
  customer: string,
  products: readonly string[],
  customerUserId = testUserId(customer),
): EventRecord {
  return orders.event(
    OrderPlacedSchema,
    {
      orderId,
      customerId: customer,
      customerUserId,
      items: products.map((productId) => ({ productId, quantity: 1, priceMinor: 100n })),
      orderDate: "2026-11-20T10:00:00",
      totalAmountMinor: 100n * BigInt(products.length),
    },
    orderId,
  );
}

/** The order's move from CREATED to `status`. */
export function statusUpdated(
  orderId: string,
  customer: string,
  status: "CONFIRMED" | "CANCELLED",
  customerUserId = testUserId(customer),
): EventRecord {
  return orders.event(
    OrderStatusUpdatedSchema,
    {
      orderId,
      customerId: customer,
      customerUserId,
      previousStatus: "CREATED",
      status,
      updatedAt: "2026-11-20T11:00:00",
      totalAmountMinor: 100n,
    },
    orderId,
  );
}

export function accountDeleted(email: string, userId = testUserId(email)): EventRecord {
  return accounts.event(
    UserDeletedSchema,
    { userId, email, deletedAt: "2026-11-20T12:00:00" },
    String(userId),
  );
}
