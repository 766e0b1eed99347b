import type { ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@commerce/runtime/identity";
import type { SandboxCheckoutService } from "@commerce/runtime/gen/commerce/payment/v1/sandbox_checkout_pb.js";
import type { SandboxCheckout } from "./sandbox-checkout.js";

/** REST: POST /api/payments/sandbox/checkout. */
export function createSandboxCheckoutHandler(
  sandboxCheckout: SandboxCheckout,
): ServiceImpl<typeof SandboxCheckoutService> {
  return {
    async checkout(req, ctx) {
      const outcome = req.outcome === "declined" ? "declined" : "paid";
      const result = await sandboxCheckout.checkout(
        requireCaller(ctx),
        req.providerOrderId,
        outcome,
        ctx.signal,
      );
      return {
        providerPaymentId: result.callback.providerPaymentId,
        status: result.status,
        message: result.message,
        callbackBody: result.callback.body,
        callbackSignature: result.callback.signature,
      };
    },
  };
}
