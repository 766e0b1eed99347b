/**
 * The provider port (ADR 0050): what the Payment service needs from a
 * payment gateway. Two adapters: the embedded sandbox (sandbox-gateway.ts, the default) and a
 * Razorpay-compatible HTTP client (http-gateway.ts). Signatures are checked by the service
 * itself (signatures.ts): both adapters sign the same way.
 */

export interface GatewayOrderRequest {
  /** Minor units (paise for INR): what the gateway charges. */
  readonly amountMinor: number;
  readonly currency: string;
  /** Our reference, shown by the gateway with its order: the payment id. */
  readonly receipt: string;
  /**
   * The same key for every attempt of one create, so a retried create (after a timeout, a lost
   * answer, a restart) gets the gateway order the first attempt made, never a second one.
   */
  readonly idempotencyKey: string;
}

export interface GatewayOrder {
  /** The gateway's id, such as `order_Kq3x9ZrT2mB7Lw`. */
  readonly id: string;
  readonly amountMinor: number;
  readonly currency: string;
}

export interface PaymentGateway {
  /** Opens an order at the gateway. Rejects with `GatewayError` when the gateway fails. */
  createOrder(request: GatewayOrderRequest, signal?: AbortSignal): Promise<GatewayOrder>;
}

/**
 * The gateway failed: an error status, a timeout, a malformed answer, no connection. Not a
 * domain error: clients get the fixed 500 message, the details stay in the log.
 */
export class GatewayError extends Error {
  override readonly name = "GatewayError";
}
