/** `@commerce/runtime/concurrency`: bounded and keyed work queues, and batched lookups. */
export * from "./batched-lookup.js";
export * from "./bounded-work.js";
export * from "./keyed-queue.js";
