/**
 * Giving a field to the documents written before it existed (ADR 0102): a pass reads those that
 * lack it, a batch at a time, lets the service decide each one's value (asking a peer, say),
 * and writes each by compare-and-set unless it has one by then. A value not known yet is left
 * for a later pass.
 *
 * A backfill runs as a migration at start (`backfillMigration`), before the service serves, and
 * then as a rare background pass (`createBackfillTask`): during a rolling update the previous
 * release's replicas still write documents without the field after the migration ran, and a
 * value a peer did not know yet is known later. Passes are idempotent and may run side by side.
 */
import { createPeriodicTask, safetyPassIntervalMs, type PeriodicTask } from "../background/periodic-task.js";
import type { EventLogger } from "../events/event-logger.js";
import { forEachBatch, lackingField } from "./document-batches.js";
import type { DocumentMigration } from "./document-migrations.js";
import type { Collection, StoredDocument } from "./document-store.js";

export interface FieldBackfill<T extends StoredDocument, V> {
  /** What the backfill is for, in the logs and its migration's record. */
  readonly description: string;
  readonly collection: Pick<Collection<T>, "find">;
  /** The field the documents written before it existed lack. */
  readonly field: keyof T & string;
  /** Each document's value, in the batch's order; undefined when not known yet. */
  readonly decide: (batch: readonly T[], signal: AbortSignal) => Promise<readonly (V | undefined)[]>;
  /** Writes `value` into document `doc` unless it has the field by now (a compare-and-set). */
  readonly write: (doc: T, value: V, signal: AbortSignal) => Promise<void>;
  /** Documents per batch (default 100). */
  readonly batchSize?: number;
}

/** What a pass did: values written, and documents left for a later pass. */
export interface BackfillOutcome {
  readonly written: number;
  readonly left: number;
}

/** One pass over the documents that lack the field. */
export async function runBackfill<T extends StoredDocument, V>(
  backfill: FieldBackfill<T, V>,
  signal: AbortSignal,
): Promise<BackfillOutcome> {
  let written = 0;
  let left = 0;
  await forEachBatch(
    backfill.collection,
    lackingField<T>(backfill.field),
    async (batch) => {
      const values = await backfill.decide(batch, signal);
      for (const [i, doc] of batch.entries()) {
        const value = values[i];
        if (value === undefined) left += 1;
        else {
          await backfill.write(doc, value, signal);
          written += 1;
        }
      }
    },
    { signal, ...(backfill.batchSize === undefined ? {} : { batchSize: backfill.batchSize }) },
  );
  return { written, left };
}

/** The backfill as the service's migration `version`: its first pass, before the service serves. */
export function backfillMigration<T extends StoredDocument, V>(
  version: number,
  backfill: FieldBackfill<T, V>,
): DocumentMigration {
  return {
    version,
    description: backfill.description,
    async run(signal) {
      await runBackfill(backfill, signal);
    },
  };
}

/** The backfill's later passes, every `intervalMs` (by default the platform's safety pass). */
export function createBackfillTask<T extends StoredDocument, V>(
  backfill: FieldBackfill<T, V>,
  logger: EventLogger,
  intervalMs = safetyPassIntervalMs,
): PeriodicTask {
  return createPeriodicTask({
    intervalMs,
    async run(signal) {
      const { written, left } = await runBackfill(backfill, signal);
      if (written > 0) logger.info({ written, left, backfill: backfill.description }, "documents backfilled");
      return written + left === 0 ? "idle" : "done";
    },
    logger,
    failureMessage: `backfill failed (${backfill.description}); the next pass retries`,
    recoveryMessage: `backfill works again (${backfill.description})`,
  });
}
