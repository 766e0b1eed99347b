/**
 * `@commerce/runtime/identity`: the caller and the client's address, who may assert them to a
 * service, and revoked accounts.
 */
export * from "./caller.js";
export * from "./client-address.js";
export * from "./request-trust.js";
export * from "./revoked-accounts.js";
export * from "./trust-settings.js";
