/**
 * `@commerce/recommendation/testing`: test support for the service's specs and the bench; never
 * imported by the service itself.
 */
export * from "./purchase-events.js";
export * from "./stored-purchases.js";
