/**
 * The analytics stream processor as its own process (ADR 0058): consumes
 * the event topics into the analytics store; it serves no API, and answers probes on PORT.
 */
import { openAnalyticsStore, readAnalyticsStoreSettings, withOwnStore } from "@commerce/runtime/analytics";
import { runServiceProcess } from "@commerce/runtime/server";
import { buildAnalyticsProcessor } from "./processor-module.js";

runServiceProcess(
  {
    name: "analytics-processor",
    peers: [],
    readSettings: (env, process) => readAnalyticsStoreSettings(env, process.dataDir),
    build: async (ctx, settings) =>
      withOwnStore(await openAnalyticsStore(settings), (store) => buildAnalyticsProcessor(ctx, { store })),
  },
  process.env,
);
