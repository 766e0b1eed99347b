/**
 * Test support: every analytics figure at once, read from the store (`readFigures`) or worked
 * out from the events a test published (`expectedFigures`), by the definitions of
 * ADR 0056, so the two compare with one deep equality.
 *
 * The expected side reads the payloads with the contract's messages and counts plainly: a user
 * exists when registered and not deleted; an order counts once placed, under the last status
 * published for it (the tests publish an order's updates in the order they happened); each
 * successful payment counts once, on the UTC day it was paid.
 */
import type { AnalyticsFigures, OrderFigures } from "@commerce/analytics";
import { type EventRecord, eventContract, parseEventData } from "@commerce/runtime/events";
import {
  UserDeletedSchema,
  UserRegisteredSchema,
} from "@commerce/runtime/gen/commerce/events/v1/auth_events_pb.js";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import { PaymentSucceededSchema } from "@commerce/runtime/gen/commerce/events/v1/payment_events_pb.js";

export interface FigureSnapshot {
  readonly totalUsers: number;
  /** The dashboard's count, beside the one of `orders`. */
  readonly totalOrders: number;
  readonly orders: OrderFigures;
  readonly ordersToday: number;
  readonly totalRevenueMinor: bigint;
  /** Days with revenue in the range, ascending. */
  readonly revenueByDayMinor: Readonly<Record<string, bigint>>;
}

/** The days the figures are read for (UTC, YYYY-MM-DD): today, and the revenue's range. */
export interface FigureDays {
  readonly today: string;
  readonly from: string;
}

const registeredType = eventContract(UserRegisteredSchema).type;
const deletedType = eventContract(UserDeletedSchema).type;
const placedType = eventContract(OrderPlacedSchema).type;
const statusType = eventContract(OrderStatusUpdatedSchema).type;
const paidType = eventContract(PaymentSucceededSchema).type;

/** The types a figure reads: each event of these must reach the store. */
const figureTypes = new Set([registeredType, deletedType, placedType, statusType, paidType]);

export async function readFigures(figures: AnalyticsFigures, days: FigureDays): Promise<FigureSnapshot> {
  const [dashboard, orders, revenue] = await Promise.all([
    figures.dashboard(days.today),
    figures.orders(),
    figures.revenueByDayMinor(days.from, days.today),
  ]);
  return {
    totalUsers: dashboard.totalUsers,
    totalOrders: dashboard.totalOrders,
    orders: { totalOrders: orders.totalOrders, ordersByStatus: { ...orders.ordersByStatus } },
    ordersToday: dashboard.ordersOnDay,
    totalRevenueMinor: dashboard.revenueMinor,
    revenueByDayMinor: Object.fromEntries([...revenue].sort(([a], [b]) => a.localeCompare(b))),
  };
}

export function expectedFigures(events: readonly EventRecord[], days: FigureDays): FigureSnapshot {
  const users = new Set<number>();
  const deleted = new Set<number>();
  const placedOn = new Map<string, string>();
  const statusOf = new Map<string, string>();
  const payments = new Map<string, { day: string; amountMinor: bigint }>();
  for (const record of events) {
    switch (record.type) {
      case registeredType:
        users.add(parseEventData(UserRegisteredSchema, record).userId);
        break;
      case deletedType:
        deleted.add(parseEventData(UserDeletedSchema, record).userId);
        break;
      case placedType: {
        const order = parseEventData(OrderPlacedSchema, record);
        placedOn.set(order.orderId, order.orderDate.slice(0, 10));
        if (!statusOf.has(order.orderId)) statusOf.set(order.orderId, "CREATED");
        break;
      }
      case statusType: {
        const update = parseEventData(OrderStatusUpdatedSchema, record);
        statusOf.set(update.orderId, update.status);
        break;
      }
      case paidType: {
        const payment = parseEventData(PaymentSucceededSchema, record);
        payments.set(payment.paymentId, {
          day: payment.paidAt.slice(0, 10),
          amountMinor: payment.amountMinor,
        });
        break;
      }
    }
  }
  const ordersByStatus = { CREATED: 0, CONFIRMED: 0, CANCELLED: 0 };
  for (const orderId of placedOn.keys()) {
    const status = statusOf.get(orderId) as keyof typeof ordersByStatus;
    ordersByStatus[status] += 1;
  }
  const revenueByDay = new Map<string, bigint>();
  for (const { day, amountMinor } of payments.values()) {
    if (day >= days.from && day <= days.today)
      revenueByDay.set(day, (revenueByDay.get(day) ?? 0n) + amountMinor);
  }
  return {
    totalUsers: [...users].filter((user) => !deleted.has(user)).length,
    totalOrders: placedOn.size,
    orders: { totalOrders: placedOn.size, ordersByStatus },
    ordersToday: [...placedOn.values()].filter((day) => day === days.today).length,
    totalRevenueMinor: [...payments.values()].reduce((sum, { amountMinor }) => sum + amountMinor, 0n),
    revenueByDayMinor: Object.fromEntries([...revenueByDay].sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** The ids of the events a figure reads, which the processor must write to the store. */
export function figureEventIds(events: readonly EventRecord[]): string[] {
  return events.filter((record) => figureTypes.has(record.type)).map((record) => record.id);
}
