/**
 * The order statuses the figures count (the Order service's state machine:
 * services/order/src/order-status.ts; a spec compares the two lists).
 */
export type OrderStatus = "CREATED" | "CONFIRMED" | "CANCELLED";

export const orderStatuses: readonly OrderStatus[] = ["CREATED", "CONFIRMED", "CANCELLED"];

export function isOrderStatus(value: string): value is OrderStatus {
  return (orderStatuses as readonly string[]).includes(value);
}
