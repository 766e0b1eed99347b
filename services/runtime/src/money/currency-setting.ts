import type { EnvReader } from "../config/env-reader.js";
import { declareSettings } from "../config/setting.js";

export const currencySettings = declareSettings({
  PAYMENT_CURRENCY: {
    default: "INR",
    meaning: "ISO 4217 currency of payments and of the amounts notifications show",
    readBy: ["embedded", "payment", "notification"],
  },
});

/**
 * `PAYMENT_CURRENCY`: the ISO 4217 code of every amount the platform shows (default INR). Read
 * by each service that prints amounts (notifications; payments).
 */
export function readPaymentCurrency(env: EnvReader): string {
  const currency = env.stringOrDefault(currencySettings.PAYMENT_CURRENCY);
  if (!/^[A-Z]{3}$/.test(currency))
    env.problem(`PAYMENT_CURRENCY must be an ISO 4217 code such as INR, got "${currency}"`);
  return currency;
}
