/**
 * `@commerce/payment`: the Payment service's module and settings, and the gateway's side of the
 * exchange that benchmarks and the crash suite play (the sandbox gateway, the signatures, the
 * payment id of an order). The process starts by path (main.ts).
 */
export { buildPaymentService, type PaymentOptions } from "./payment-module.js";
export {
  noGatewayMessage,
  paymentSettings,
  readPaymentSettings,
  type PaymentSettings,
} from "./payment-settings.js";
export { createSandboxGateway, type SandboxSecrets } from "./gateway/sandbox-gateway.js";
export { paymentSignature, webhookSignature } from "./gateway/signatures.js";
export { paymentSignatureHeader } from "./payment-handler.js";
export { paymentIdOf } from "./payment-store.js";
