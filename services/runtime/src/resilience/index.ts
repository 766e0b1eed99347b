/** `@commerce/runtime/resilience`: the one retry policy and its backoff. */
export * from "./backoff.js";
export * from "./retry.js";
export * from "./patient-call.js";
