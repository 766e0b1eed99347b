/**
 * `@commerce/runtime/testing`: test support for specs (harnesses, test stores, probes); never
 * imported by production code.
 */
export * from "./captured-logger.js";
export * from "./compose-modules.js";
export * from "./config-problems.js";
export * from "./eventually.js";
export * from "./faulty-transport.js";
export * from "./metrics-probe.js";
export * from "./raw-http-exchange.js";
export * from "./registered-account.js";
export * from "./rejection.js";
export * from "./service-harness.js";
export * from "./tcp-proxy.js";
export * from "./test-analytics-stores.js";
export * from "./test-stores.js";
export * from "./traced-product-host.js";
