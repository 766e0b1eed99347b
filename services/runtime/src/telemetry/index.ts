/**
 * `@commerce/runtime/telemetry`: traces and metrics, their settings, and the spans of each port.
 */
export * from "./analytics-spans.js";
export * from "./rpc-client-spans.js";
export * from "./rpc-server-spans.js";
export * from "./store-spans.js";
export * from "./telemetry.js";
export * from "./telemetry-settings.js";
export * from "./trace-context.js";
