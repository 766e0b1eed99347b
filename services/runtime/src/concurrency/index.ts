/** `@commerce/runtime/concurrency`: bounded and keyed work queues. */
export * from "./bounded-work.js";
export * from "./keyed-queue.js";
