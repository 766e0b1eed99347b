/**
 * Rebuilds the analytics store's tables from the event log (ADR 0059): the Analytics service's
 * and the Recommendation service's. Empties them, then replays every event the log holds, from
 * the earliest record, through the stream processor's and the recommendation consumer's own
 * code, in a consumer group of its own. It returns once the replay has reached the end the log
 * had when it began, so the figures are then complete (and equal to what the live consumers had
 * built, since both count each event once).
 *
 * The live consumers may keep running meanwhile: whatever they write after the tables were
 * emptied stays, and whatever they had written before comes again from the replay. The figures
 * read low, and recommendations thin, while the replay runs. Two rebuilds at once are refused by
 * the bus (the replay's group still has a member).
 */
import {
  createCoPurchaseProcessor,
  recommendationMigrations,
  recommendationTables,
  recommendationVersionTable,
} from "@commerce/recommendation";
import {
  type AnalyticsStore,
  migrateAnalyticsStore,
  identifier,
  sql,
  storeConsumerBatch,
} from "@commerce/runtime/analytics";
import {
  type BatchHandler,
  type EventBus,
  type PartitionLag,
  startBatchConsumer,
  type EventLogger,
  eventTopics,
} from "@commerce/runtime/events";
import { untraced } from "@commerce/runtime/telemetry";
import { setTimeout as delay } from "node:timers/promises";
import { analyticsMigrations, pipelineTables } from "../analytics-schema.js";
import { createStreamProcessor } from "../processor/stream-processor.js";

/** The replay's consumer group; deleted before and after, so each rebuild starts at the beginning. */
export const rebuildGroup = "analytics-rebuild";

export interface RebuildOptions {
  readonly store: AnalyticsStore;
  readonly bus: EventBus;
  readonly logger: EventLogger;
  /** Told how many of the log's records the replay has passed, every `progressMs`. */
  readonly onProgress?: (replayed: bigint, total: bigint) => void;
  readonly progressMs?: number;
}

export interface RebuildResult {
  /** Records the log held when the replay began (all topics, every type). */
  readonly records: bigint;
}

export async function rebuildAnalytics(options: RebuildOptions): Promise<RebuildResult> {
  const { store, bus, logger } = options;
  await migrateAnalyticsStore(store, analyticsMigrations);
  await migrateAnalyticsStore(store, recommendationMigrations, recommendationVersionTable);
  for (const table of [...pipelineTables, ...recommendationTables]) {
    await store.command(sql`TRUNCATE TABLE ${identifier(table)}`);
  }
  const topics = eventTopics();
  await bus.deleteGroup(rebuildGroup);
  const goal = await bus.lag(rebuildGroup, topics);
  const total = goal.reduce((n, lag) => n + (BigInt(lag.end) - BigInt(lag.start)), 0n);
  logger.info({ records: total.toString() }, "analytics rebuild: tables emptied, replaying the event log");
  const subscription = await startBatchConsumer(bus, {
    group: rebuildGroup,
    topics,
    ...storeConsumerBatch,
    handler: inTurn([createStreamProcessor(store), createCoPurchaseProcessor(store)]),
    logger,
    // A replay of the whole log, not the effect of the requests that caused the records.
    telemetry: untraced,
  });
  try {
    let lastReport = Date.now();
    for (;;) {
      const now = await bus.lag(rebuildGroup, topics);
      const replayed = goal.reduce((n, target) => n + passed(target, now), 0n);
      if (replayed >= total) break;
      if (options.onProgress !== undefined && Date.now() - lastReport >= (options.progressMs ?? 2_000)) {
        lastReport = Date.now();
        options.onProgress(replayed, total);
      }
      await delay(100);
    }
  } finally {
    await subscription.close();
  }
  await bus.deleteGroup(rebuildGroup);
  logger.info({ records: total.toString() }, "analytics rebuild: done");
  return { records: total };
}

/** Each handler's work on every batch, one after the other (each ignores what it does not read). */
function inTurn(handlers: readonly BatchHandler[]): BatchHandler {
  return async (batch, signal) => {
    for (const handle of handlers) await handle(batch, signal);
  };
}

/** How many of `target`'s records (up to its end then) the group has passed now. */
function passed(target: PartitionLag, now: readonly PartitionLag[]): bigint {
  const current = now.find((lag) => lag.topic === target.topic && lag.partition === target.partition);
  const position = BigInt(current?.committed ?? target.start);
  const end = BigInt(target.end);
  const start = BigInt(target.start);
  const reached = position < end ? position : end;
  return reached > start ? reached - start : 0n;
}
