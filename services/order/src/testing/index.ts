/**
 * `@commerce/order/testing`: test support for the specs of the Order service and of its peers;
 * never imported by production code.
 */
export * from "./stored-order.js";
