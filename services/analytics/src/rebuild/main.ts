/**
 * `npm run analytics:rebuild` (in a deployment: `node services/analytics/src/rebuild/main.js`):
 * empties the analytics tables and replays the event log into them (analytics-rebuild.ts), on
 * the store and bus the environment selects, as the services' processes do: CLICKHOUSE_URL or
 * chDB under DATA_DIR, KAFKA_BROKERS or the embedded bus under DATA_DIR. The embedded bus and
 * chDB belong to one process at a time, so in embedded mode stop the platform first; on Kafka
 * and ClickHouse the platform may keep running.
 */
import { openAnalyticsStore, readAnalyticsStoreSettings } from "@commerce/runtime/analytics";
import { ConfigError, EnvReader, readInfraSettings, readProcessSettings } from "@commerce/runtime/config";
import { openPlatformBus } from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import { rebuildAnalytics } from "./analytics-rebuild.js";

async function main(): Promise<void> {
  const reader = new EnvReader(process.env, { process: "analytics-rebuild" });
  const processSettings = readProcessSettings(reader);
  const infra = readInfraSettings(reader);
  const analytics = readAnalyticsStoreSettings(reader, processSettings.dataDir);
  reader.finish(undefined);
  const logger = createLogger(processSettings.logLevel, "commerce-analytics-rebuild");
  const bus = await openPlatformBus({
    infra,
    dataDir: processSettings.dataDir,
    clientId: "commerce-analytics-rebuild",
    logger,
  });
  try {
    const store = await openAnalyticsStore(analytics);
    try {
      const started = Date.now();
      const { records } = await rebuildAnalytics({
        store,
        bus,
        logger,
        onProgress: (replayed, total) => process.stdout.write(`replayed ${replayed} of ${total} records\n`),
      });
      process.stdout.write(
        `analytics rebuilt from ${records} records of the event log in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    } finally {
      await store.close();
    }
  } finally {
    await bus.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`analytics:rebuild: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`analytics:rebuild: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
