import type { EnvReader } from "../config/env-reader.js";
import { declareSettings } from "../config/setting.js";

export const gatewaySettings = declareSettings({
  PAYMENT_GATEWAY_URL: {
    whenUnset: "none (then `PAYMENT_SANDBOX=true` is required)",
    meaning:
      "Base URL of a Razorpay-compatible gateway; the web app's pages may post its checkout form there",
    readBy: ["embedded", "payment", "web"],
  },
});

/**
 * `PAYMENT_GATEWAY_URL`: the payment gateway's base URL, or undefined when there is none (the
 * Payment service then takes the sandbox only when `PAYMENT_SANDBOX` asks for it, ADR 0117).
 * Read by the Payment service, which opens orders there, and by whatever serves the web app's
 * pages, whose security policy lets a form post to that origin only: the customer pays on the
 * gateway's hosted checkout page (ADR 0090).
 */
export function readPaymentGatewayUrl(env: EnvReader): string | undefined {
  return env.url(gatewaySettings.PAYMENT_GATEWAY_URL, ["http:", "https:"]);
}
