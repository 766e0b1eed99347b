/**
 * `@commerce/runtime/store`: the document-store port, its MongoDB and embedded adapters, and the
 * write helpers on it.
 */
export * from "./change-document.js";
export * from "./document-batches.js";
export * from "./document-migrations.js";
export * from "./document-store.js";
export * from "./embedded-store.js";
export * from "./field-backfill.js";
export * from "./insert-once.js";
export * from "./mongo-store.js";
export * from "./sequential-id.js";
