/**
 * The stream processor's work on one batch (docs/decisions.md "Analytics"): each record becomes
 * at most one row (event-rows.ts), and the rows go to the store with one insert per table. The
 * handler resolves only after the store acknowledged every insert, and the bus commits the
 * batch only then, so a crash between the two redelivers the batch: its rows arrive again with
 * the same event ids, which FINAL reads once.
 *
 * A record that cannot be placed fails the whole batch with `PermanentEventError` before
 * anything is written; the consumer's policy (`withBatchRetries`) then hands the records over
 * one at a time, so the others are written and only that one is dead-lettered.
 */
import type { AnalyticsRow, AnalyticsStore } from "@commerce/runtime/analytics/analytics-store.js";
import type { BatchHandler } from "@commerce/runtime/events/event-bus.js";
import { PermanentEventError } from "@commerce/runtime/events/permanent-event-error.js";
import type { AnalyticsTable } from "../analytics-schema.js";
import { analyticsRowOf } from "./event-rows.js";

export function createStreamProcessor(store: AnalyticsStore): BatchHandler {
  return async (batch) => {
    const rows = new Map<AnalyticsTable, AnalyticsRow[]>();
    for (const record of batch.records) {
      const mapped = analyticsRowOf(record);
      if (mapped === undefined) continue;
      const table = rows.get(mapped.table);
      if (table === undefined) rows.set(mapped.table, [mapped.row]);
      else table.push(mapped.row);
    }
    for (const [table, tableRows] of rows) {
      try {
        await store.insert(table, tableRows);
      } catch (error) {
        // The store's encoding refused a value (a string with a lone surrogate, say) before
        // anything was sent: no retry can change that record.
        if (error instanceof TypeError) {
          throw new PermanentEventError(`a row for ${table} cannot be stored: ${error.message}`, {
            cause: error,
          });
        }
        throw error;
      }
    }
  };
}
