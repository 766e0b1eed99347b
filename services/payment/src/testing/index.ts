/**
 * `@commerce/payment/testing`: test support for specs of other packages; never imported by
 * production code.
 */
export * from "./fake-gateway-server.js";
export * from "./published-payment-events.js";
