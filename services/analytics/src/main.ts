/** The Analytics service as its own process (ADR 0018). */
import { openAnalyticsStore, readAnalyticsStoreSettings, withOwnStore } from "@commerce/runtime/analytics";
import { runServiceProcess } from "@commerce/runtime/server";
import { buildAnalyticsService } from "./analytics-module.js";

runServiceProcess(
  {
    name: "analytics",
    peers: [],
    readSettings: (env, process) => readAnalyticsStoreSettings(env, process.dataDir),
    build: async (ctx, settings) =>
      withOwnStore(await openAnalyticsStore(settings), (store) => buildAnalyticsService(ctx, { store })),
  },
  process.env,
);
