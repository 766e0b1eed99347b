/**
 * Wiring of the Recommendation service: the analytics store and the Product service in, routes
 * and one consumer out, no socket. The consumer reads the order, product and account events in
 * the `recommendation-service` group, a batch at a time (co-purchase-processor.ts), as a store
 * consumer (`createStoreConsumer`: a failing store is waited for, never dead-lettered, since
 * every ranking would stay wrong until a rebuild; an unreadable record goes to
 * `recommendation-service.dead-letter`). Ready while the store answers. Its document
 * migrations (in its own database) run first at start: purchase-owners.ts.
 */
import { createClient } from "@connectrpc/connect";
import { type AnalyticsStore, createStoreConsumer, migrateAnalyticsStore } from "@commerce/runtime/analytics";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { migrateDocumentStore } from "@commerce/runtime/store";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { withAnalyticsSpans } from "@commerce/runtime/telemetry";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import {
  CustomerRecommendationService,
  RecommendationService,
} from "@commerce/runtime/gen/commerce/recommendation/v1/recommendation_pb.js";
import { createCoPurchaseProcessor } from "./co-purchase-processor.js";
import { purchaseTopics } from "./purchase-facts.js";
import { purchaseOwnersMigration } from "./purchase-owners.js";
import {
  createRecommendationHandler,
  createCustomerRecommendationHandler,
} from "./recommendation-handler.js";
import { createRankingsReplica } from "./rankings-replica.js";
import { createRecommendationReads } from "./recommendation-reads.js";
import { recommendationMigrations, recommendationVersionTable } from "./recommendation-schema.js";
import { createRecommendations } from "./recommendations.js";

export const recommendationGroup = "recommendation-service";

export interface RecommendationOptions {
  /** The analytics store; its owner closes it after `stop`. */
  readonly store: AnalyticsStore;
  /** How often readiness pings the store (default 2 s). */
  readonly healthIntervalMs?: number;
}

export async function buildRecommendationService(
  ctx: ServiceContext,
  options: RecommendationOptions,
): Promise<ServiceModule> {
  // Its statements as CLIENT spans under its own tracer, in either topology.
  const store = withAnalyticsSpans(options.store, ctx.telemetry);
  await migrateAnalyticsStore(store, recommendationMigrations, recommendationVersionTable);
  const rankings = createRankingsReplica(store, { logger: ctx.logger });
  const recommendations = createRecommendations(
    createRecommendationReads(rankings),
    createClient(ProductLookupService, ctx.transport),
  );
  const consumer = createStoreConsumer(ctx, {
    store,
    group: recommendationGroup,
    topics: purchaseTopics,
    handler: createCoPurchaseProcessor(store),
    healthIntervalMs: options.healthIntervalMs,
  });
  return {
    name: "recommendation",
    services: [RecommendationService, CustomerRecommendationService],
    register(router) {
      router.service(RecommendationService, createRecommendationHandler(recommendations));
      router.service(CustomerRecommendationService, createCustomerRecommendationHandler(recommendations));
    },
    async start() {
      // Before the copy loads: it then holds the purchases keyed again (purchase-owners.ts).
      const owners = purchaseOwnersMigration(store, createClient(AccountService, ctx.transport));
      await migrateDocumentStore(ctx.store, [owners], { logger: ctx.logger });
      await rankings.start();
      await consumer.start();
    },
    async stop() {
      await consumer.stop();
      await rankings.stop();
    },
    isHealthy: () => consumer.healthy(),
  };
}
