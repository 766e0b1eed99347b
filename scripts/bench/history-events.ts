/**
 * The events of a made-up shop history for the analytics bench, built from the real payload
 * messages with the runtime's event factory, as the services build them. Unlike the analytics
 * specs' builders (services/analytics/src/testing/analytics-events.ts), every event takes the
 * time it happened at, in its payload (`registeredAt`, `orderDate`, `paidAt`, …, UTC wall
 * clock) and in its CloudEvents `time`, and belongs to a customer of its own: the bench spreads
 * a history over days and users.
 */
import { type EventRecord, createEventFactory, type OutboxEntry } from "@commerce/runtime/events";
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
import {
  ProductCreatedSchema,
  ProductUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";
import { newOrderId } from "@commerce/order";
import { paymentIdOf } from "@commerce/payment";

const auth = createEventFactory("/commerce/auth");
const orders = createEventFactory("/commerce/order");
const payments = createEventFactory("/commerce/payment");
const products = createEventFactory("/commerce/product");

/** An order of the history: what its later events repeat. */
export interface HistoryOrder {
  readonly orderId: string;
  readonly paymentId: string;
  /** The customer's email, the contract's customerId. */
  readonly customerId: string;
  readonly productId: string;
  readonly quantity: number;
  readonly unitMinor: bigint;
  readonly totalMinor: bigint;
}

export const emailOf = (userId: number): string => `customer${userId}@bench.test`;
export const productIdOf = (n: number): string => `bench-product-${n}`;

/** A new order of `userId` for `quantity` of product `product`, at `unitMinor` each. */
export function newHistoryOrder(
  userId: number,
  product: number,
  quantity: number,
  unitMinor: bigint,
): HistoryOrder {
  const orderId = newOrderId();
  return {
    orderId,
    paymentId: paymentIdOf(orderId),
    customerId: emailOf(userId),
    productId: productIdOf(product),
    quantity,
    unitMinor,
    totalMinor: unitMinor * BigInt(quantity),
  };
}

/** The entry as published at `at`: the CloudEvents time agrees with the payload's. */
function at(entry: OutboxEntry, when: Date): EventRecord {
  return { ...entry, time: when.toISOString() };
}

export function registered(userId: number, when: Date): EventRecord {
  return at(
    auth.event(
      UserRegisteredSchema,
      {
        userId,
        email: emailOf(userId),
        fullName: `Customer ${userId}`,
        role: "CUSTOMER",
        phoneNo: "+919876543210",
        registeredAt: formatTimestamp(when),
      },
      String(userId),
    ),
    when,
  );
}

export function loggedIn(userId: number, when: Date): EventRecord {
  return at(
    auth.event(
      UserLoginSchema,
      { userId, email: emailOf(userId), loggedInAt: formatTimestamp(when) },
      String(userId),
    ),
    when,
  );
}

export function deleted(userId: number, when: Date): EventRecord {
  return at(
    auth.event(
      UserDeletedSchema,
      { userId, email: emailOf(userId), deletedAt: formatTimestamp(when) },
      String(userId),
    ),
    when,
  );
}

export function placed(order: HistoryOrder, when: Date): EventRecord {
  return at(
    orders.event(
      OrderPlacedSchema,
      {
        orderId: order.orderId,
        customerId: order.customerId,
        items: [{ productId: order.productId, quantity: order.quantity, priceMinor: order.unitMinor }],
        orderDate: formatTimestamp(when),
        totalAmountMinor: order.totalMinor,
      },
      order.orderId,
    ),
    when,
  );
}

/** A move of the order's state machine: CREATED → CONFIRMED or CONFIRMED → CANCELLED. */
export function statusUpdated(
  order: HistoryOrder,
  previousStatus: "CREATED" | "CONFIRMED",
  status: "CONFIRMED" | "CANCELLED",
  when: Date,
): EventRecord {
  return at(
    orders.event(
      OrderStatusUpdatedSchema,
      {
        orderId: order.orderId,
        customerId: order.customerId,
        previousStatus,
        status,
        updatedAt: formatTimestamp(when),
        totalAmountMinor: order.totalMinor,
      },
      order.orderId,
    ),
    when,
  );
}

export function paymentCreated(order: HistoryOrder, when: Date): EventRecord {
  return at(
    payments.event(
      PaymentCreatedSchema,
      {
        paymentId: order.paymentId,
        orderId: order.orderId,
        customerId: order.customerId,
        amountMinor: order.totalMinor,
        currency: "INR",
        providerOrderId: `order_${order.paymentId.slice(4, 18)}`,
      },
      order.paymentId,
    ),
    when,
  );
}

/** An attempt `attempt` (1, 2, …) at the gateway that succeeded. */
export function paid(order: HistoryOrder, attempt: number, when: Date): EventRecord {
  return at(
    payments.event(
      PaymentSucceededSchema,
      {
        paymentId: order.paymentId,
        orderId: order.orderId,
        customerId: order.customerId,
        amountMinor: order.totalMinor,
        providerPaymentId: `pay_${order.paymentId.slice(4, 18)}_${attempt}`,
        paidAt: formatTimestamp(when),
      },
      order.paymentId,
    ),
    when,
  );
}

export function paymentFailed(order: HistoryOrder, attempt: number, when: Date): EventRecord {
  return at(
    payments.event(
      PaymentFailedSchema,
      {
        paymentId: order.paymentId,
        orderId: order.orderId,
        customerId: order.customerId,
        amountMinor: order.totalMinor,
        providerPaymentId: `pay_${order.paymentId.slice(4, 18)}_${attempt}`,
        reason: "declined",
      },
      order.paymentId,
    ),
    when,
  );
}

export function productCreated(product: number, priceMinor: bigint, when: Date): EventRecord {
  const productId = productIdOf(product);
  return at(
    products.event(
      ProductCreatedSchema,
      {
        productId,
        name: `Bench product ${product}`,
        stock: 1_000,
        brand: "Bench",
        categoryId: "books",
        sku: `BENCH-${product}`,
        priceMinor,
      },
      productId,
    ),
    when,
  );
}

export function productUpdated(product: number, priceMinor: bigint, stock: number, when: Date): EventRecord {
  const productId = productIdOf(product);
  return at(
    products.event(
      ProductUpdatedSchema,
      { productId, name: `Bench product ${product}`, stock, priceMinor },
      productId,
    ),
    when,
  );
}
