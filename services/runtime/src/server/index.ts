/**
 * `@commerce/runtime/server`: service modules and their hosts, the dual-protocol server, health,
 * and the process entry points.
 */
export * from "./dependency-health.js";
export * from "./dual-protocol-server.js";
export * from "./error-body.js";
export * from "./health-service.js";
export * from "./health-watch.js";
export * from "./peer-addresses.js";
export * from "./protocol-refusals.js";
export * from "./service-host.js";
export * from "./service-module.js";
export * from "./service-process.js";
export * from "./shutdown-on-signals.js";
export * from "./web-process.js";
