/** `@commerce/runtime/config`: declared settings and the environment reader. */
export * from "./env-reader.js";
export * from "./process-settings.js";
export * from "./setting.js";
