/**
 * The Payment service's own settings (docs/configuration.md). Read by the Payment process and
 * by the embedded platform (which generates the two secrets once when they are unset, and
 * chooses the sandbox gateway when no gateway is given: embedded-config.ts).
 *
 * Which gateway takes the payments is always a choice (ADR 0117): a real one
 * (`PAYMENT_GATEWAY_URL` with `PAYMENT_KEY_ID`) or the sandbox (`PAYMENT_SANDBOX=true`), which
 * takes no money. Neither, or both, is a configuration error, so that no deployment falls back
 * to free payments because a value was left out.
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
  PAYMENT_SANDBOX: {
    whenUnset: "`true` in embedded mode without a gateway; `false`",
    meaning: "`true`: payments go to the sandbox gateway, which takes no money; or set a gateway (not both)",
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
  /** PAYMENT_GATEWAY_URL (with PAYMENT_KEY_ID) selects the HTTP gateway, PAYMENT_SANDBOX the sandbox. */
  readonly gateway: GatewaySettings;
}

export function readPaymentSettings(env: EnvReader): PaymentSettings {
  const { PAYMENT_KEY_SECRET, PAYMENT_WEBHOOK_SECRET, PAYMENT_KEY_ID, PAYMENT_SANDBOX } = paymentSettings;
  const keySecret = secret(env, PAYMENT_KEY_SECRET, "to sign and verify payments");
  const webhookSecret = secret(env, PAYMENT_WEBHOOK_SECRET, "to verify the gateway's callbacks");
  const baseUrl = readPaymentGatewayUrl(env);
  const keyId = env.string(PAYMENT_KEY_ID);
  const sandbox = env.boolean(PAYMENT_SANDBOX) ?? false;
  let gateway: GatewaySettings = { kind: "sandbox" };
  if (baseUrl !== undefined) {
    gateway = { kind: "http", baseUrl, keyId: env.required(PAYMENT_KEY_ID, "with PAYMENT_GATEWAY_URL") };
    if (sandbox) {
      env.problem(
        "PAYMENT_GATEWAY_URL and PAYMENT_SANDBOX=true exclude each other: payments go to one gateway (unset PAYMENT_SANDBOX to take them at the gateway)",
      );
    }
  } else {
    if (!sandbox) env.problem(noGatewayMessage);
    if (keyId !== undefined) {
      env.problem("PAYMENT_KEY_ID is set without PAYMENT_GATEWAY_URL (the sandbox gateway needs no key id)");
    }
  }
  return { currency: readPaymentCurrency(env), keySecret, webhookSecret, gateway };
}

/** Why a deployment with no gateway chosen does not start. */
export const noGatewayMessage =
  "no payment gateway is configured: set PAYMENT_GATEWAY_URL and PAYMENT_KEY_ID to take payments at a gateway, or PAYMENT_SANDBOX=true for the sandbox gateway, which takes no money (development and tests only)";

function secret(env: EnvReader, setting: Setting, why: string): string {
  const value = env.required(setting, why);
  if (value !== "" && value.length < minPaymentSecretLength) {
    env.problem(`${setting.name} must be at least ${minPaymentSecretLength} characters`);
  }
  return value;
}
