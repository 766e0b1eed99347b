/**
 * Test support: events as the services publish them, built from the real payload messages, for
 * the analytics specs. Times are UTC wall clock (`YYYY-MM-DDTHH:MM:SS`); amounts minor units.
 */
import { type EventRecord, createEventFactory } from "@commerce/runtime/events";
import { formatTimestamp } from "@commerce/runtime/time";
import {
  UserDeletedSchema,
  UserLoginSchema,
  UserRegisteredSchema,
} from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import {
  PaymentCreatedSchema,
  PaymentFailedSchema,
  PaymentSucceededSchema,
} from "@commerce/runtime/gen/commerce/events/v1/payment_events_pb.js";
import { ProductCreatedSchema } from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";

const auth = createEventFactory("/commerce/auth");
const orders = createEventFactory("/commerce/order");
const payments = createEventFactory("/commerce/payment");
const products = createEventFactory("/commerce/product");

/** Now, as the services write it. */
export const now = (): string => formatTimestamp(new Date());

export function registered(userId: number, at = now()): EventRecord {
  const email = `user${userId}@x.test`;
  return auth.event(
    UserRegisteredSchema,
    { userId, email, fullName: "Asha Verma", role: "CUSTOMER", phoneNo: "", registeredAt: at },
    String(userId),
  );
}

export function loggedIn(userId: number): EventRecord {
  return auth.event(
    UserLoginSchema,
    { userId, email: `user${userId}@x.test`, loggedInAt: now() },
    String(userId),
  );
}

export function deleted(userId: number, at = now()): EventRecord {
  return auth.event(
    UserDeletedSchema,
    { userId, email: `user${userId}@x.test`, deletedAt: at },
    String(userId),
  );
}

export function placed(orderId: string, totalAmountMinor: bigint, at = now()): EventRecord {
  return orders.event(
    OrderPlacedSchema,
    {
      orderId,
      customerId: "alice@x.test",
      items: [{ productId: "p1", quantity: 1, priceMinor: totalAmountMinor }],
      orderDate: at,
      totalAmountMinor,
    },
    orderId,
  );
}

export function statusUpdated(orderId: string, previousStatus: string, status: string): EventRecord {
  return orders.event(
    OrderStatusUpdatedSchema,
    { orderId, customerId: "alice@x.test", previousStatus, status, updatedAt: now(), totalAmountMinor: 0n },
    orderId,
  );
}

export function paid(paymentId: string, orderId: string, amountMinor: bigint, at = now()): EventRecord {
  return payments.event(
    PaymentSucceededSchema,
    {
      paymentId,
      orderId,
      customerId: "alice@x.test",
      amountMinor,
      providerPaymentId: `pay_${paymentId}`,
      paidAt: at,
    },
    paymentId,
  );
}

export function paymentCreated(paymentId: string, orderId: string, amountMinor: bigint): EventRecord {
  return payments.event(
    PaymentCreatedSchema,
    {
      paymentId,
      orderId,
      customerId: "alice@x.test",
      amountMinor,
      currency: "INR",
      providerOrderId: "order_X",
    },
    paymentId,
  );
}

export function paymentFailed(paymentId: string, orderId: string, amountMinor: bigint): EventRecord {
  return payments.event(
    PaymentFailedSchema,
    {
      paymentId,
      orderId,
      customerId: "alice@x.test",
      amountMinor,
      providerPaymentId: "pay_Y",
      reason: "declined",
    },
    paymentId,
  );
}

export function productCreated(productId: string): EventRecord {
  return products.event(
    ProductCreatedSchema,
    { productId, name: "Pen", stock: 5, brand: "Acme", categoryId: "books", sku: "PEN-1", priceMinor: 1999n },
    productId,
  );
}
