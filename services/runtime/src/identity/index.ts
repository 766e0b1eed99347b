/**
 * `@commerce/runtime/identity`: the caller, who may assert it to a service, and revoked accounts.
 */
export * from "./caller.js";
export * from "./request-trust.js";
export * from "./revoked-accounts.js";
export * from "./trust-settings.js";
export * from "./email-holders-client.js";
