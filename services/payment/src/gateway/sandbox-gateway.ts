/**
 * The embedded sandbox gateway (the default adapter): in-process, no network, no account.
 * It opens orders the way a Razorpay-compatible gateway does, and its `checkout` pays one the
 * way a real checkout would, producing the callback the gateway would send, correctly signed
 * with the deployment's secrets.
 *
 * Stateless on purpose: a gateway order id is derived from the create's idempotency key
 * (HMAC with the key secret), so a retried create, in this process or after a restart, gets
 * the same order, and there is nothing to lose or to grow.
 */
import { createHmac } from "node:crypto";
import { gatewayId, randomGatewayId } from "./gateway-ids.js";
import type { GatewayOrder, GatewayOrderRequest, PaymentGateway } from "./payment-gateway.js";
import { paymentSignature, webhookSignature } from "./signatures.js";

export interface SandboxSecrets {
  /** PAYMENT_KEY_SECRET: signs `provider_signature`. */
  readonly keySecret: string;
  /** PAYMENT_WEBHOOK_SECRET: signs the callback body (`X-Payment-Signature`). */
  readonly webhookSecret: string;
}

/** What a checkout ends with: the callback as the gateway would post it. */
export interface SandboxCallback {
  /** The raw JSON body: { provider_payment_id, provider_order_id, provider_signature }. */
  readonly body: string;
  /** The `X-Payment-Signature` header's value. */
  readonly signature: string;
  readonly providerPaymentId: string;
}

/**
 * `paid`: the payment is captured (a valid `provider_signature`). `declined`: the payment
 * failed, and the callback carries a `provider_signature` that does not verify, which is how
 * the service learns of a failure.
 */
export type CheckoutOutcome = "paid" | "declined";

export interface SandboxGateway extends PaymentGateway {
  /** Pays (or fails to pay) gateway order `providerOrderId`: one new provider payment. */
  checkout(providerOrderId: string, outcome: CheckoutOutcome): SandboxCallback;
}

/** True for the sandbox: the only gateway whose checkout the platform itself offers. */
export function isSandboxGateway(gateway: PaymentGateway): gateway is SandboxGateway {
  return typeof (gateway as Partial<SandboxGateway>).checkout === "function";
}

export function createSandboxGateway(secrets: SandboxSecrets): SandboxGateway {
  return {
    createOrder(request: GatewayOrderRequest): Promise<GatewayOrder> {
      const digest = createHmac("sha256", secrets.keySecret)
        .update(`sandbox-order:${request.idempotencyKey}`)
        .digest();
      return Promise.resolve({
        id: gatewayId("order", digest),
        amountMinor: request.amountMinor,
        currency: request.currency,
      });
    },

    checkout(providerOrderId, outcome) {
      const providerPaymentId = randomGatewayId("pay");
      const signed = paymentSignature(providerOrderId, providerPaymentId, secrets.keySecret);
      // A declined payment's signature is over something else: it cannot verify.
      const providerSignature =
        outcome === "paid"
          ? signed
          : paymentSignature(providerOrderId, `${providerPaymentId}:declined`, secrets.keySecret);
      const body = JSON.stringify({
        provider_payment_id: providerPaymentId,
        provider_order_id: providerOrderId,
        provider_signature: providerSignature,
      });
      return { body, signature: webhookSignature(body, secrets.webhookSecret), providerPaymentId };
    },
  };
}
