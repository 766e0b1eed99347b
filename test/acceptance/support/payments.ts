/**
 * Payments for the black-box suites: opening a payment for a fresh order, and acting as the
 * gateway, whose callbacks are signed with the deployment's secrets (PAYMENT_KEY_SECRET,
 * PAYMENT_WEBHOOK_SECRET: npm test sets them). The signatures are computed here from the
 * published scheme (ADR 0051), independently of the service's code.
 */
import { expect } from "chai";
import { createHmac, randomBytes } from "node:crypto";
import { api, type ApiResponse } from "./api.js";
import { createdProduct } from "./catalog.js";
import { pollUntil } from "./polling.js";

export interface OpenPayment {
  readonly orderId: string;
  readonly providerOrderId: string;
  readonly amount: number;
}

export interface PaymentView {
  readonly paymentId: string;
  readonly orderId: string;
  readonly amount: number;
  readonly status: string;
  readonly createdAt: string;
}

function secret(name: "PAYMENT_KEY_SECRET" | "PAYMENT_WEBHOOK_SECRET"): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(`the payment suites need ${name} (npm test sets it; see docs/developing.md, "Tests")`);
  }
  return value;
}

const hmacHex = (key: string, text: string): string => createHmac("sha256", key).update(text).digest("hex");

/** X-Payment-Signature of a raw body. */
export const webhookSignature = (body: string, key = secret("PAYMENT_WEBHOOK_SECRET")): string =>
  hmacHex(key, body);

/** `provider_signature` of a captured payment. */
export const paymentSignature = (providerOrderId: string, providerPaymentId: string): string =>
  hmacHex(secret("PAYMENT_KEY_SECRET"), `${providerOrderId}|${providerPaymentId}`);

/** A gateway payment id, such as Razorpay makes: `pay_` and 14 alphanumerics. */
export const providerPaymentId = (): string =>
  `pay_${randomBytes(16)
    .toString("base64")
    .replace(/[^0-9A-Za-z]/g, "")
    .slice(0, 14)}`;

/** The JSON body of a callback for a captured (`paid`) or failed payment. */
export function callbackBody(
  providerOrderId: string,
  outcome: "paid" | "failed",
  paymentId = providerPaymentId(),
): string {
  const signature =
    outcome === "paid"
      ? paymentSignature(providerOrderId, paymentId)
      : paymentSignature(providerOrderId, `${paymentId}-failed`);
  return JSON.stringify({
    provider_payment_id: paymentId,
    provider_order_id: providerOrderId,
    provider_signature: signature,
  });
}

/** POST /api/payments/callback with this raw body and signature header (none when undefined). */
export function postCallback(body: string, signature: string | undefined): Promise<ApiResponse> {
  return api("POST", "/api/payments/callback", {
    rawBody: body,
    headers: {
      "content-type": "application/json",
      ...(signature === undefined ? {} : { "x-payment-signature": signature }),
    },
  });
}

/** A fresh order of the token's user: `quantity` units of a new product at `price`. */
export async function placedOrder(token: string, price: number, quantity = 1): Promise<string> {
  const productId = await createdProduct({ price, stock: 100 });
  const response = await api("POST", "/api/orders", { token, body: { items: [{ productId, quantity }] } });
  expect(response.status, response.text).to.equal(201);
  return (response.body as { orderId: string }).orderId;
}

/** A fresh order of `price` and its payment, opened (200). */
export async function openPayment(token: string, price: number): Promise<OpenPayment> {
  const orderId = await placedOrder(token, price);
  const response = await api("POST", "/api/payments/create", { token, body: { orderId, amount: price } });
  expect(response.status, response.text).to.equal(200);
  return {
    orderId,
    providerOrderId: (response.body as { providerOrderId: string }).providerOrderId,
    amount: price,
  };
}

export async function myPayments(token: string): Promise<PaymentView[]> {
  const response = await api("GET", "/api/payments/my", { token });
  expect(response.status, response.text).to.equal(200);
  return response.body as PaymentView[];
}

export async function orderStatus(token: string, orderId: string): Promise<string> {
  const response = await api("GET", `/api/orders/${encodeURIComponent(orderId)}`, { token });
  expect(response.status, response.text).to.equal(200);
  return (response.body as { status: string }).status;
}

/** Pays the gateway order as the sandbox checkout does; `paid` or `declined`. */
export async function sandboxCheckout(
  token: string,
  providerOrderId: string,
  outcome: "paid" | "declined",
): Promise<void> {
  const response = await api("POST", "/api/payments/sandbox/checkout", {
    token,
    body: { providerOrderId, outcome },
  });
  expect(response.status, response.text).to.equal(200);
}

/** Waits until the order reads `status` (up to `deadlineMs`). */
export function awaitOrderStatus(
  token: string,
  orderId: string,
  status: string,
  deadlineMs?: number,
): Promise<string> {
  return pollUntil(
    `order ${orderId} to read ${status}`,
    async () => ((await orderStatus(token, orderId)) === status ? status : undefined),
    deadlineMs,
  );
}
