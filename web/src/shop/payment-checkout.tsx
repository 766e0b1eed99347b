/**
 * Paying an order: `POST /api/payments/create` opens a gateway order for the order's total.
 * With a gateway configured, its answer names the gateway's hosted checkout, and the customer
 * goes there to pay (hosted-checkout.ts). With the platform's sandbox gateway (embedded mode's
 * default), the sandbox's checkout is right here: it pays (or declines) the gateway order and
 * delivers the gateway's signed callback. Either way the order is confirmed moments later, by
 * the payment's event: `onPaid` lets the page watch for it.
 */
import { useState } from "react";
import type { components } from "@commerce/client";
import { api } from "../api/commerce.js";
import { useAction } from "../api/use-action.js";
import { formatMoney } from "../ui/format.js";
import { ProblemNotice } from "../ui/status.js";
import { goToHostedCheckout } from "./hosted-checkout.js";

type GatewayOrder = components["schemas"]["CreatePaymentResponse"];

export function PaymentCheckout({
  orderId,
  customerEmail,
  amount,
  onPaid,
}: {
  orderId: string;
  customerEmail: string;
  amount: number;
  onPaid: () => void;
}) {
  const [gatewayOrder, setGatewayOrder] = useState<GatewayOrder | undefined>(undefined);
  const [declined, setDeclined] = useState(false);
  // The page is being left for the gateway's: the button stays busy until it is.
  const [leaving, setLeaving] = useState(false);
  const action = useAction();
  const { problem } = action;
  const busy = action.busy || leaving;

  const open = (): Promise<void> => {
    setDeclined(false);
    return action.run(() => api.POST("/api/payments/create", { body: { orderId, amount } }), {
      done: (created) => {
        if (created.checkout === undefined) {
          setGatewayOrder(created);
          return;
        }
        setLeaving(true);
        goToHostedCheckout(created.checkout, created, { orderId, customerEmail });
      },
    });
  };

  const pay = (outcome: "paid" | "declined"): Promise<void> =>
    gatewayOrder === undefined
      ? Promise.resolve()
      : action.run(
          () =>
            api.POST("/api/payments/sandbox/checkout", {
              body: { providerOrderId: gatewayOrder.providerOrderId, outcome },
            }),
          {
            done: (paid) => {
              if (paid.status === "SUCCESS") {
                onPaid();
                return;
              }
              setGatewayOrder(undefined);
              setDeclined(true);
            },
          },
        );

  return (
    <section className="card checkout" aria-labelledby="checkout-heading">
      <h2 id="checkout-heading">Payment</h2>
      {problem === undefined ? null : <ProblemNotice problem={problem} />}
      {declined ? (
        <p className="notice" role="status">
          The payment was declined. Nothing was charged; you can try again.
        </p>
      ) : null}
      {gatewayOrder === undefined ? (
        <button type="button" disabled={busy} onClick={() => void open()}>
          {busy ? "Opening the checkout…" : `Pay ${formatMoney(amount)}`}
        </button>
      ) : (
        <div className="sandbox" role="group" aria-labelledby="sandbox-heading">
          <h3 id="sandbox-heading">Sandbox checkout</h3>
          <p>
            The platform&apos;s test gateway: no money moves. Gateway order{" "}
            <code>{gatewayOrder.providerOrderId}</code>, {gatewayOrder.currency}{" "}
            {formatMoney(gatewayOrder.amount)}.
          </p>
          <div className="actions">
            <button type="button" disabled={busy} onClick={() => void pay("paid")}>
              {busy ? "Paying…" : "Pay now"}
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => void pay("declined")}>
              Decline
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
