/** The Recommendation service as its own process (ADR 0018). */
import { openAnalyticsStore, readAnalyticsStoreSettings, withOwnStore } from "@commerce/runtime/analytics";
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import { buildRecommendationService } from "./recommendation-module.js";

runServiceProcess(
  {
    name: "recommendation",
    peers: [{ address: peerAddresses.PRODUCT_SERVICE_URL, services: [ProductLookupService] }],
    readSettings: (env, process) => readAnalyticsStoreSettings(env, process.dataDir),
    build: async (ctx, settings) =>
      withOwnStore(await openAnalyticsStore(settings), (store) => buildRecommendationService(ctx, { store })),
  },
  process.env,
);
