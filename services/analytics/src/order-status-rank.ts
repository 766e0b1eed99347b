/**
 * Where each order status stands in the order's life. Statuses only move forward (CREATED →
 * CONFIRMED → CANCELLED, the Order service's state machine: services/order/src/order-status.ts),
 * so an order's latest status is the one of highest rank among its events: exact whatever order
 * the events arrive in and however often, with no clock to compare.
 */
export type OrderStatus = "CREATED" | "CONFIRMED" | "CANCELLED";

/** In rank order. */
export const orderStatuses: readonly OrderStatus[] = ["CREATED", "CONFIRMED", "CANCELLED"];

/** 0 for CREATED, 1 for CONFIRMED, 2 for CANCELLED; undefined for anything else. */
export function orderStatusRank(status: string): number | undefined {
  const rank = (orderStatuses as readonly string[]).indexOf(status);
  return rank < 0 ? undefined : rank;
}

/** The status of a rank read back from the store. */
export function orderStatusOfRank(rank: number): OrderStatus | undefined {
  return orderStatuses[rank];
}
