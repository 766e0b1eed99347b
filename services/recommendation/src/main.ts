/** The Recommendation service as its own process (ADR 0018). */
import { openAnalyticsStore, readAnalyticsStoreSettings, withOwnStore } from "@commerce/runtime/analytics";
import { peerAddresses, runServiceProcess } from "@commerce/runtime/server";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import { buildRecommendationService } from "./recommendation-module.js";

runServiceProcess(
  {
    name: "recommendation",
    peers: [
      { address: peerAddresses.PRODUCT_SERVICE_URL, services: [ProductLookupService] },
      { address: peerAddresses.AUTH_SERVICE_URL, services: [AccountService] },
    ],
    readSettings: (env, process) => readAnalyticsStoreSettings(env, process.dataDir),
    build: async (ctx, settings) =>
      withOwnStore(await openAnalyticsStore(settings), (store) => buildRecommendationService(ctx, { store })),
  },
  process.env,
);
