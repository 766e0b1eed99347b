/**
 * `@commerce/runtime/identity`: the caller and the client's address, who may assert them to a
 * service, the credential of each hop, and revoked accounts.
 */
export * from "./caller.js";
export * from "./client-address.js";
export * from "./derived-service-credentials.js";
export * from "./hop-credentials.js";
export * from "./request-trust.js";
export * from "./revoked-accounts.js";
export * from "./trust-settings.js";
export * from "./email-holders-client.js";
