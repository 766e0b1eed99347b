/** `@commerce/runtime/errors`: the typed domain errors and their one mapping to Connect codes. */
export * from "./domain-error.js";
export * from "./infrastructure-failure.js";
export * from "./to-connect-error.js";
export * from "./unavailable-dependency-error.js";
