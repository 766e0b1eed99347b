/** `@commerce/runtime/time`: the wall clock and sequence time. */
export * from "./sequence-time.js";
export * from "./wall-clock.js";
