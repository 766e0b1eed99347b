/**
 * Wiring of the Recommendation service: the analytics store and the Product service in, routes
 * and one consumer out, no socket. The consumer reads the order, product and account events in
 * the `recommendation-service` group, a batch at a time (co-purchase-processor.ts), under the
 * runtime's retry and dead-letter policy, with one difference, as for the analytics stream
 * processor: a failing store is waited for, never dead-lettered (every ranking would stay wrong
 * until a rebuild). Only a record that can never be read goes to
 * `recommendation-service.dead-letter`. Ready while the store answers.
 */
import { createClient } from "@connectrpc/connect";
import { type AnalyticsStore, migrateAnalyticsStore } from "@commerce/runtime/analytics";
import { type Subscription, startBatchConsumer } from "@commerce/runtime/events";
import { createHealthWatch, type ServiceContext, type ServiceModule } from "@commerce/runtime/server";
import { withAnalyticsSpans } from "@commerce/runtime/telemetry";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import {
  CustomerRecommendationService,
  RecommendationService,
} from "@commerce/runtime/gen/commerce/recommendation/v1/recommendation_pb.js";
import { createCoPurchaseProcessor } from "./co-purchase-processor.js";
import { purchaseTopics } from "./purchase-facts.js";
import {
  createRecommendationHandler,
  createCustomerRecommendationHandler,
} from "./recommendation-handler.js";
import { createRecommendationReads } from "./recommendation-reads.js";
import { recommendationMigrations, recommendationVersionTable } from "./recommendation-schema.js";
import { createRecommendations } from "./recommendations.js";

export const recommendationGroup = "recommendation-service";

/** Batches: at most this many records, waiting at most this long to fill (freshness). */
export const recommendationBatch = { maxRecords: 5_000, maxWaitMs: 200 } as const;

/** Retries of a failing batch: as many as it takes (see the module comment). */
const untilTheStoreAnswers = Number.MAX_SAFE_INTEGER;

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
  const recommendations = createRecommendations(
    createRecommendationReads(store),
    createClient(ProductLookupService, ctx.transport),
  );
  const health = createHealthWatch({
    name: "analytics store",
    check: () => store.ping(),
    intervalMs: options.healthIntervalMs ?? 2_000,
    logger: ctx.logger,
  });
  let subscription: Subscription | undefined;
  return {
    name: "recommendation",
    services: [RecommendationService, CustomerRecommendationService],
    register(router) {
      router.service(RecommendationService, createRecommendationHandler(recommendations));
      router.service(CustomerRecommendationService, createCustomerRecommendationHandler(recommendations));
    },
    async start() {
      await health.start();
      subscription = await startBatchConsumer(ctx.bus, {
        telemetry: ctx.telemetry,
        group: recommendationGroup,
        topics: purchaseTopics,
        ...recommendationBatch,
        handler: createCoPurchaseProcessor(store),
        logger: ctx.logger,
        attempts: untilTheStoreAnswers,
      });
    },
    async stop() {
      await subscription?.close();
      health.stop();
    },
    isHealthy: () => health.healthy(),
  };
}
