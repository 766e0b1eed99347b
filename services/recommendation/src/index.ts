/**
 * `@commerce/recommendation`: "customers who bought this also bought", learnt from the order
 * events. So far its store and its reads: the tables in the analytics store, the batch handler
 * that fills them from the events, and the queries that rank products.
 */
export { createCoPurchaseProcessor } from "./co-purchase-processor.js";
export { purchaseFactOf, purchaseTopics, type PurchaseFact } from "./purchase-facts.js";
export { createRecommendationReads, type RecommendationReads } from "./recommendation-reads.js";
export { recommendationMigrations, recommendationVersionTable } from "./recommendation-schema.js";
