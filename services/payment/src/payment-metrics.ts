import type { Meter } from "@opentelemetry/api";
import type { PaymentStatus } from "./payment-store.js";

/** The Payment service's business counters, on its own meter (ADR 0065). */
export interface PaymentMetrics {
  /** A payment was created (CREATED) or a callback moved it (SUCCESS, FAILED). */
  paymentReached(status: PaymentStatus): void;
}

export function createPaymentMetrics(meter: Meter): PaymentMetrics {
  const payments = meter.createCounter("commerce.payments", {
    description: "Payments that reached a status, by status",
    unit: "{payment}",
  });
  return { paymentReached: (status) => payments.add(1, { "payment.status": status }) };
}
