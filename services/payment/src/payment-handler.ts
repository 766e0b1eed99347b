import type { ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@commerce/runtime/identity";
import { fromMinorUnits } from "@commerce/runtime/money";
import { methodContract } from "@commerce/runtime/contract";
import { type HostedCheckout, PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import type { Payments } from "./payments.js";

/** The gateway's signature of the callback's raw body: the header the contract names. */
export const paymentSignatureHeader = signatureHeaderOf();

function signatureHeaderOf(): string {
  const header = methodContract(PaymentService.method.handleCallback).signatureHeader;
  if (header === undefined) throw new Error("HandleCallback's contract names no signature header");
  return header.toLowerCase();
}

/**
 * REST: /api/payments/create, /api/payments/my, /api/payments/callback. `checkout` is the
 * gateway's hosted checkout that a created payment is paid at; none with the sandbox gateway.
 */
export function createPaymentHandler(
  payments: Payments,
  checkout?: Pick<HostedCheckout, "url" | "keyId">,
): ServiceImpl<typeof PaymentService> {
  return {
    async createPayment(req, ctx) {
      // The contract requires the amount; the fallback only narrows the type.
      const payment = await payments.createPayment(
        requireCaller(ctx),
        req.orderId,
        req.amount ?? 0,
        ctx.signal,
      );
      return {
        providerOrderId: payment.providerOrderId,
        amount: fromMinorUnits(payment.amountMinor),
        currency: payment.currency,
        ...(checkout === undefined ? {} : { checkout }),
      };
    },
    async listMyPayments(_req, ctx) {
      const mine = await payments.listMyPayments(requireCaller(ctx), ctx.signal);
      return {
        payments: mine.map((payment) => ({
          paymentId: payment._id,
          orderId: payment.orderId,
          amount: fromMinorUnits(payment.amountMinor),
          status: payment.status,
          createdAt: payment.createdAt,
        })),
      };
    },
    async handleCallback(req, ctx) {
      const raw = req.body?.data ?? new Uint8Array();
      const message = await payments.handleCallback(
        raw,
        ctx.requestHeader.get(paymentSignatureHeader),
        ctx.signal,
      );
      return { message };
    },
  };
}
