/**
 * The order state machine of the contract: a new order is CREATED; an
 * admin moves it CREATED → CONFIRMED and CONFIRMED → CANCELLED. Every other requested move,
 * staying in the same status included, is an invalid transition (409).
 */
export type OrderStatus = "CREATED" | "CONFIRMED" | "CANCELLED";

export const orderStatuses: readonly OrderStatus[] = ["CREATED", "CONFIRMED", "CANCELLED"];

const moves: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  CREATED: ["CONFIRMED"],
  CONFIRMED: ["CANCELLED"],
  CANCELLED: [],
};

/** Whether an admin may move an order from `from` to `to`. */
export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return moves[from].includes(to);
}

/** Narrows a validated request value (the contract's `in` rule) to a status. */
export function isOrderStatus(value: string): value is OrderStatus {
  return (orderStatuses as readonly string[]).includes(value);
}
