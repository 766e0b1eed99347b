/** `@commerce/runtime/contract`: the contract's services and each method's contract options. */
export * from "./contract-services.js";
export * from "./method-contract.js";
