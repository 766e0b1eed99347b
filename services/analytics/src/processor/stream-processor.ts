/**
 * The stream processor's work on one batch (ADR 0058): each record becomes
 * at most one row (event-rows.ts); the rows go to their family's event table with one insert
 * per table, and then the rollups of the seconds they touched are summed again
 * (analytics-rollups.ts). The handler resolves only after all of it is acknowledged, and the
 * bus commits the batch only then, so a crash anywhere in between redelivers the batch: its rows
 * arrive again with the same event ids, which FINAL reads once, and the sums are taken again.
 *
 * A record that cannot be placed fails the whole batch with `PermanentEventError` before
 * anything is written; the consumer's rule (`withBatchDeadLetters`) then hands the records over
 * one at a time, so the others are written and only that one is dead-lettered.
 */
import type { AnalyticsStore } from "@commerce/runtime/analytics";
import { type BatchHandler, PermanentEventError } from "@commerce/runtime/events";
import { eventTables, refreshRollups, type EventFamily } from "../analytics-rollups.js";
import { analyticsRowOf, type TableRow } from "./event-rows.js";

export function createStreamProcessor(store: AnalyticsStore): BatchHandler {
  return async (batch, signal) => {
    const byFamily = new Map<EventFamily, TableRow[]>();
    for (const record of batch.records) {
      const mapped = analyticsRowOf(record);
      if (mapped === undefined) continue;
      const family = byFamily.get(mapped.family);
      if (family === undefined) byFamily.set(mapped.family, [mapped]);
      else family.push(mapped);
    }
    for (const [family, mapped] of byFamily) {
      try {
        await store.insert(
          eventTables[family],
          mapped.map(({ row }) => row),
          signal,
        );
      } catch (error) {
        // The store's encoding refused a value (a string with a lone surrogate, say) before
        // anything was sent: no retry can change that record.
        if (error instanceof TypeError) {
          throw new PermanentEventError(
            `a row for ${eventTables[family]} cannot be stored: ${error.message}`,
            {
              cause: error,
            },
          );
        }
        throw error;
      }
    }
    for (const [family, mapped] of byFamily) {
      await refreshRollups(
        store,
        family,
        mapped.map(({ occurredAt }) => occurredAt),
        signal,
      );
    }
  };
}
