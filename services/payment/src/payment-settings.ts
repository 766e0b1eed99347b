/**
 * The Payment service's own settings (README "Configuration"). Read by the Payment process and
 * by the embedded platform (which generates the two secrets once when they are unset).
 */
import type { EnvReader } from "@commerce/runtime/config/env-reader.js";
import { readPaymentCurrency } from "@commerce/runtime/money/currency-setting.js";

/** Shortest accepted gateway secret. */
export const minPaymentSecretLength = 16;

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
  const keySecret = secret(env, "PAYMENT_KEY_SECRET", "to sign and verify payments");
  const webhookSecret = secret(env, "PAYMENT_WEBHOOK_SECRET", "to verify the gateway's callbacks");
  const baseUrl = env.url("PAYMENT_GATEWAY_URL", ["http:", "https:"]);
  const keyId = env.string("PAYMENT_KEY_ID");
  let gateway: GatewaySettings = { kind: "sandbox" };
  if (baseUrl !== undefined) {
    gateway = { kind: "http", baseUrl, keyId: env.required("PAYMENT_KEY_ID", "with PAYMENT_GATEWAY_URL") };
  } else if (keyId !== undefined) {
    env.problem("PAYMENT_KEY_ID is set without PAYMENT_GATEWAY_URL (the sandbox gateway needs no key id)");
  }
  return { currency: readPaymentCurrency(env), keySecret, webhookSecret, gateway };
}

function secret(env: EnvReader, name: string, why: string): string {
  const value = env.required(name, why);
  if (value !== "" && value.length < minPaymentSecretLength) {
    env.problem(`${name} must be at least ${minPaymentSecretLength} characters`);
  }
  return value;
}
