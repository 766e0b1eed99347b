/**
 * The gateway's two signatures (ADR 0051), hex HMAC-SHA256 as Razorpay
 * computes them:
 *   - the webhook signature (`X-Payment-Signature`): over the raw request body, keyed with
 *     PAYMENT_WEBHOOK_SECRET: proves the callback comes from the gateway, unaltered;
 *   - the payment signature (`provider_signature`): over `provider_order_id|provider_payment_id`,
 *     keyed with PAYMENT_KEY_SECRET: proves the gateway captured that payment for that order.
 * Verification compares in constant time, so timing reveals nothing of the expected value.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const hexSha256 = /^[0-9a-f]{64}$/;

export function hmacSha256Hex(secret: string, message: string | Uint8Array): string {
  return createHmac("sha256", secret).update(message).digest("hex");
}

export function webhookSignature(body: Uint8Array | string, webhookSecret: string): string {
  return hmacSha256Hex(webhookSecret, body);
}

export function paymentSignature(
  providerOrderId: string,
  providerPaymentId: string,
  keySecret: string,
): string {
  return hmacSha256Hex(keySecret, `${providerOrderId}|${providerPaymentId}`);
}

export function isValidWebhookSignature(
  body: Uint8Array,
  signature: string | null | undefined,
  webhookSecret: string,
): boolean {
  return sameSignature(webhookSignature(body, webhookSecret), signature);
}

export function isValidPaymentSignature(
  providerOrderId: string,
  providerPaymentId: string,
  signature: string,
  keySecret: string,
): boolean {
  return sameSignature(paymentSignature(providerOrderId, providerPaymentId, keySecret), signature);
}

/**
 * Constant-time equality of an expected hex digest and a received one. The received one is
 * lower-cased first (hex is case-insensitive); anything that is not 64 hex digits is refused
 * before comparing, which reveals only its shape, never the expected value.
 */
function sameSignature(expected: string, received: string | null | undefined): boolean {
  const candidate = received?.trim().toLowerCase() ?? "";
  if (!hexSha256.test(candidate)) return false;
  return timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(candidate, "hex"));
}
