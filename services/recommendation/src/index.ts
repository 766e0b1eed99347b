/**
 * `@commerce/recommendation`: "customers who bought this also bought", learnt from the order
 * events. The module the platform builds, and its parts the bench drives directly: the tables
 * in the analytics store, the batch handler that fills them from the events, and the reads.
 */
export { createCoPurchaseProcessor } from "./co-purchase-processor.js";
export { purchaseFactOf, purchaseTopics, type PurchaseFact } from "./purchase-facts.js";
export { createRankingsReplica, defaultCustomersHeld, type RankingsReplica } from "./rankings-replica.js";
export { purchasesList } from "./rankings.js";
export { createRecommendationReads, type RecommendationReads } from "./recommendation-reads.js";
export {
  buildRecommendationService,
  recommendationGroup,
  type RecommendationOptions,
} from "./recommendation-module.js";
export {
  recommendationMigrations,
  recommendationTables,
  recommendationVersionTable,
} from "./recommendation-schema.js";
