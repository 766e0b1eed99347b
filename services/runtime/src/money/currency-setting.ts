import type { EnvReader } from "../config/env-reader.js";

/**
 * `PAYMENT_CURRENCY`: the ISO 4217 code of every amount the platform shows (default INR). Read
 * by each service that prints amounts (notifications; payments).
 */
export function readPaymentCurrency(env: EnvReader): string {
  const currency = env.string("PAYMENT_CURRENCY") ?? "INR";
  if (!/^[A-Z]{3}$/.test(currency))
    env.problem(`PAYMENT_CURRENCY must be an ISO 4217 code such as INR, got "${currency}"`);
  return currency;
}
