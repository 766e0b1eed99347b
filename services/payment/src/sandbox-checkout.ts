/**
 * The sandbox gateway's checkout (ADR 0050): the customer's side of a
 * payment, which at a real gateway happens on its payment page. The sandbox makes the provider
 * payment and its signed callback, and the callback is delivered through exactly the path a
 * gateway's webhook takes (`Payments.handleCallback`), so a sandbox payment is checked, recorded
 * and published like a real one.
 *
 * Only the payment's owner (by user id) may check it out; a paid gateway order takes no further
 * payment (409), as at a real gateway. With a real gateway configured there is no sandbox: the
 * route answers 404 with the body of a path that does not exist (ADR 0117).
 */
import { conflict, forbidden, notFound, unavailable } from "@commerce/runtime/errors";
import { noRouteMessage } from "@commerce/runtime/server";
import type { Caller } from "@commerce/runtime/identity";
import type { CheckoutOutcome, SandboxCallback, SandboxGateway } from "./gateway/sandbox-gateway.js";
import type { PaymentStatus } from "./payment-store.js";
import type { Payments } from "./payments.js";

export interface SandboxCheckoutResult {
  readonly callback: SandboxCallback;
  /** The payment's status once its callback was processed. */
  readonly status: PaymentStatus;
  /** The callback's answer. */
  readonly message: string;
}

export interface SandboxCheckout {
  checkout(
    caller: Caller,
    providerOrderId: string,
    outcome: CheckoutOutcome,
    signal: AbortSignal,
  ): Promise<SandboxCheckoutResult>;
}

export interface SandboxCheckoutDeps {
  /** Undefined when a real gateway is configured. */
  readonly sandbox: SandboxGateway | undefined;
  readonly payments: Pick<Payments, "byGatewayOrder" | "handleCallback">;
}

const encoder = new TextEncoder();

export function createSandboxCheckout(deps: SandboxCheckoutDeps): SandboxCheckout {
  return {
    async checkout(caller, providerOrderId, outcome, signal) {
      const { sandbox } = deps;
      if (sandbox === undefined) throw notFound(noRouteMessage);
      const payment = await deps.payments.byGatewayOrder(providerOrderId, signal);
      if (payment === undefined) throw notFound("gateway order not found");
      if (payment.customerUserId !== caller.userId) {
        throw forbidden("this payment belongs to another customer");
      }
      if (payment.status === "SUCCESS") throw conflict("this gateway order is paid already");

      const callback = sandbox.checkout(payment.providerOrderId, outcome);
      const message = await deps.payments.handleCallback(
        encoder.encode(callback.body),
        callback.signature,
        signal,
      );
      const after = await deps.payments.byGatewayOrder(payment.providerOrderId, signal);
      if (after === undefined) throw unavailable("the payment disappeared; retry");
      return { callback, status: after.status, message };
    },
  };
}
