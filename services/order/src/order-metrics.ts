import type { Meter } from "@opentelemetry/api";

/** The Order service's business counters, on its own meter (ADR 0065). */
export interface OrderMetrics {
  /** An order was placed (written, ORDER_PLACED recorded). */
  orderPlaced(): void;
}

export function createOrderMetrics(meter: Meter): OrderMetrics {
  const placed = meter.createCounter("commerce.orders.placed", {
    description: "Orders placed",
    unit: "{order}",
  });
  return { orderPlaced: () => placed.add(1) };
}
