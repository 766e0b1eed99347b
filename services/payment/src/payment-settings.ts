/**
 * The Payment service's own settings (docs/configuration.md). Read by the Payment process and
 * by the embedded platform (which generates the two secrets once when they are unset).
 */
import { type EnvReader, declareSettings, type Setting } from "@commerce/runtime/config";
import { readPaymentCurrency, readPaymentGatewayUrl } from "@commerce/runtime/money";

/** Shortest accepted gateway secret. */
export const minPaymentSecretLength = 16;

export const paymentSettings = declareSettings({
  PAYMENT_KEY_SECRET: {
    whenUnset: "generated in embedded mode; required",
    meaning: `The gateway key's secret: signs payments (at least ${minPaymentSecretLength} characters)`,
    readBy: ["embedded", "payment"],
  },
  PAYMENT_WEBHOOK_SECRET: {
    whenUnset: "generated in embedded mode; required",
    meaning: `Signs the gateway's callbacks (at least ${minPaymentSecretLength} characters)`,
    readBy: ["embedded", "payment"],
  },
  PAYMENT_KEY_ID: {
    whenUnset: "none",
    meaning: "Gateway key id (basic auth); required with `PAYMENT_GATEWAY_URL`",
    readBy: ["embedded", "payment"],
  },
});

export type GatewaySettings =
  { readonly kind: "sandbox" } | { readonly kind: "http"; readonly baseUrl: string; readonly keyId: string };

export interface PaymentSettings {
  /** PAYMENT_CURRENCY: the currency of every payment. */
  readonly currency: string;
  /** PAYMENT_KEY_SECRET: the gateway API key's secret; it also keys `provider_signature`. */
  readonly keySecret: string;
  /** PAYMENT_WEBHOOK_SECRET: keys the callback's `X-Payment-Signature`. */
  readonly webhookSecret: string;
  /** PAYMENT_GATEWAY_URL (with PAYMENT_KEY_ID) selects the HTTP gateway; unset, the sandbox. */
  readonly gateway: GatewaySettings;
}

export function readPaymentSettings(env: EnvReader): PaymentSettings {
  const { PAYMENT_KEY_SECRET, PAYMENT_WEBHOOK_SECRET, PAYMENT_KEY_ID } = paymentSettings;
  const keySecret = secret(env, PAYMENT_KEY_SECRET, "to sign and verify payments");
  const webhookSecret = secret(env, PAYMENT_WEBHOOK_SECRET, "to verify the gateway's callbacks");
  const baseUrl = readPaymentGatewayUrl(env);
  const keyId = env.string(PAYMENT_KEY_ID);
  let gateway: GatewaySettings = { kind: "sandbox" };
  if (baseUrl !== undefined) {
    gateway = { kind: "http", baseUrl, keyId: env.required(PAYMENT_KEY_ID, "with PAYMENT_GATEWAY_URL") };
  } else if (keyId !== undefined) {
    env.problem("PAYMENT_KEY_ID is set without PAYMENT_GATEWAY_URL (the sandbox gateway needs no key id)");
  }
  return { currency: readPaymentCurrency(env), keySecret, webhookSecret, gateway };
}

function secret(env: EnvReader, setting: Setting, why: string): string {
  const value = env.required(setting, why);
  if (value !== "" && value.length < minPaymentSecretLength) {
    env.problem(`${setting.name} must be at least ${minPaymentSecretLength} characters`);
  }
  return value;
}
