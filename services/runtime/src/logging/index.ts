/** `@commerce/runtime/logging`: the structured logger. */
export * from "./logger.js";
