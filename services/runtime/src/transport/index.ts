/**
 * `@commerce/runtime/transport`: client transports (credentials, lazy, routing) and the deadline
 * sweeper.
 */
export * from "./credential-transport.js";
export * from "./deadline-sweeper.js";
export * from "./grpc-peer-transport.js";
export * from "./lazy-transport.js";
export * from "./routing-transport.js";
