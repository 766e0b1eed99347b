/**
 * Test support: the hosted checkout of the fake gateway (fake-gateway-server.ts), the pages a
 * customer's browser meets there, shaped like Razorpay's:
 *   - `POST /v1/checkout/embedded`, the merchant's form (`key_id`, `order_id`, `callback_url`,
 *     `cancel_url`, ...): a page with the order, a "Pay" button and a "Cancel" link back to
 *     `cancel_url`. A wrong key id or an order the gateway did not make is a 400 page;
 *   - `POST /v1/checkout/embedded/pay`, the "Pay" button: makes a payment, delivers its signed
 *     callback to the platform (`deliverCallbacksTo`) as the gateway's webhook does, then sends
 *     the browser back to `callback_url` with a POST of the payment (a form the page submits).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomGatewayId } from "../gateway/gateway-ids.js";
import { paymentSignature, webhookSignature } from "../gateway/signatures.js";

export interface CallbackTarget {
  /** The platform's `POST /api/payments/callback`. */
  readonly url: string;
  readonly webhookSecret: string;
}

export interface DeliveredCallback {
  readonly providerOrderId: string;
  readonly providerPaymentId: string;
  /** The platform's answer to it. */
  readonly status: number;
}

export interface FakeHostedCheckout {
  /** Answers the request when it is one of the checkout's pages; false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean>;
  deliverCallbacksTo(target: CallbackTarget): void;
  readonly callbacks: readonly DeliveredCallback[];
}

export function createFakeHostedCheckout(options: {
  readonly keyId: string;
  readonly keySecret: string;
  /** The orders the gateway made, by id. */
  readonly orderOf: (id: string) => { readonly amount: number; readonly currency: string } | undefined;
}): FakeHostedCheckout {
  let target: CallbackTarget | undefined;
  const callbacks: DeliveredCallback[] = [];

  async function pay(form: URLSearchParams, res: ServerResponse): Promise<void> {
    const providerOrderId = form.get("order_id") ?? "";
    const callbackUrl = form.get("callback_url") ?? "";
    if (options.orderOf(providerOrderId) === undefined || target === undefined) {
      page(res, 400, "Payment refused", "<p>This gateway order cannot be paid here.</p>");
      return;
    }
    const providerPaymentId = randomGatewayId("pay");
    const signature = paymentSignature(providerOrderId, providerPaymentId, options.keySecret);
    const body = JSON.stringify({
      provider_payment_id: providerPaymentId,
      provider_order_id: providerOrderId,
      provider_signature: signature,
    });
    const delivered = await fetch(target.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-payment-signature": webhookSignature(body, target.webhookSecret),
      },
      body,
    });
    await delivered.arrayBuffer();
    callbacks.push({ providerOrderId, providerPaymentId, status: delivered.status });
    const back = {
      razorpay_payment_id: providerPaymentId,
      razorpay_order_id: providerOrderId,
      razorpay_signature: signature,
    };
    page(
      res,
      200,
      "Payment received",
      `<p>Paid. Taking you back to the shop…</p>
<form method="post" action="${escape(callbackUrl)}">${hiddenFields(back)}<button>Back to the shop</button></form>
<script>document.forms[0].submit();</script>`,
    );
  }

  return {
    async serve(req, res, body) {
      if (req.method !== "POST" || !req.url?.startsWith("/v1/checkout/embedded")) return false;
      const form = new URLSearchParams(body);
      if (req.url === "/v1/checkout/embedded/pay") {
        await pay(form, res);
        return true;
      }
      if (req.url !== "/v1/checkout/embedded") return false;
      const providerOrderId = form.get("order_id") ?? "";
      const order = options.orderOf(providerOrderId);
      if (form.get("key_id") !== options.keyId || order === undefined) {
        page(res, 400, "Checkout refused", "<p>Unknown merchant key or gateway order.</p>");
        return true;
      }
      const fields = { order_id: providerOrderId, callback_url: form.get("callback_url") ?? "" };
      page(
        res,
        200,
        "Test gateway checkout",
        `<p>${escape(form.get("description") ?? "")}: ${order.currency} ${order.amount / 100}</p>
<form method="post" action="/v1/checkout/embedded/pay">${hiddenFields(fields)}<button>Pay</button></form>
<p><a href="${escape(form.get("cancel_url") ?? "")}">Cancel</a></p>`,
      );
      return true;
    },
    deliverCallbacksTo(next) {
      target = next;
    },
    callbacks,
  };
}

function hiddenFields(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join("");
}

function page(res: ServerResponse, status: number, title: string, content: string): void {
  res
    .writeHead(status, { "content-type": "text/html; charset=utf-8" })
    .end(
      `<!doctype html><html lang="en"><head><title>${title}</title><link rel="icon" href="data:,"></head><body><h1>${title}</h1>${content}</body></html>`,
    );
}

const entities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char] ?? char);
}
