/**
 * Sending the customer to the payment gateway's hosted checkout, as its documentation describes:
 * the browser posts a form with the gateway order to the gateway's page (the app's security
 * policy lets a form go there and nowhere else: ADR 0090). Once the customer has paid, the
 * gateway posts the browser back to `/checkout/return/{orderId}`, which the platform's site
 * turns into this order's page; giving up there comes back to the same page. The payment itself
 * is settled by the gateway's signed callback to the API, not by this round trip.
 */
import type { components } from "@commerce/client";

type GatewayOrder = components["schemas"]["CreatePaymentResponse"];
type HostedCheckout = components["schemas"]["HostedCheckout"];

export function goToHostedCheckout(
  checkout: HostedCheckout,
  gatewayOrder: GatewayOrder,
  order: { readonly orderId: string; readonly customerEmail: string },
): void {
  const back = (path: string): string => new URL(path, window.location.origin).href;
  const orderPath = `/orders/${encodeURIComponent(order.orderId)}`;
  const fields: Record<string, string> = {
    key_id: checkout.keyId,
    order_id: gatewayOrder.providerOrderId,
    name: "Commerce",
    description: `Order ${order.orderId}`,
    "prefill[email]": order.customerEmail,
    callback_url: back(`/checkout/return/${encodeURIComponent(order.orderId)}`),
    cancel_url: back(`${orderPath}?payment=cancelled`),
  };
  const form = document.createElement("form");
  form.method = "post";
  form.action = checkout.url;
  form.hidden = true;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}
