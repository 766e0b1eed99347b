/**
 * Migrations of a service's document database (ADR 0102): an ordered list, each applied once,
 * before the service serves, and recorded in the database itself (`document_migrations`, one
 * document per version).
 *
 * Several processes may start at once (the replicas of a service, a rolling update), and the
 * store has no transactions and no lock, only its two atomic primitives (ADR 0035), so:
 *   - a process takes a migration by inserting its record (the unique `_id` decides which one)
 *     or, when the record's holder has gone silent, by compare-and-set of that record;
 *   - the holder shows it is alive by moving the record's version every `pollMs`; the others
 *     wait, reading the record, and take over once its version has not moved for `leaseMs`
 *     by their own clock (no two clocks are compared);
 *   - the holder that finds its record taken from it stops its run and waits like the others;
 *   - the record says `done` in one compare-and-set once the run has ended.
 * A run is therefore never trusted to be alone, nor to finish: a holder killed half-way leaves
 * its record to the next process, which runs the migration again, and a holder presumed dead
 * may still be writing. Every migration must be idempotent and correct beside a second run of
 * itself: it reads documents in batches (`forEachBatch`) and changes each by compare-and-set
 * (`changeDocument`), deciding from what the document holds now.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import type { EventLogger } from "../events/event-logger.js";
import { DuplicateKeyError, type CollectionSpec, type VersionedDocument } from "./document-store.js";
import type { Collection, DocumentStore } from "./document-store.js";

export interface DocumentMigration {
  /** 1 for the first, then one more for each. */
  readonly version: number;
  /** What it does, kept in its record. */
  readonly description: string;
  /**
   * Does the work: idempotent, batched, and correct beside another run of itself (see the
   * module's comment). `signal` aborts when this process lost the migration to another one, or
   * its caller gave up.
   */
  run(signal: AbortSignal): Promise<void>;
}

/** A migration's record. */
export interface MigrationRecord extends VersionedDocument {
  /** The migration's version. */
  readonly _id: number;
  readonly description: string;
  /** `running` while a holder works on it; `done` once applied, for good. */
  readonly state: "running" | "done";
  /** The run that holds it (a token per call of `migrateDocumentStore`); "" once released. */
  readonly holder: string;
  /** UTC, RFC 3339, when it was applied. */
  readonly doneAt?: string;
}

export const migrationRecordsSpec: CollectionSpec<MigrationRecord> = { name: "document_migrations" };

export interface MigrateOptions {
  /** Told when a migration is applied or taken over. */
  readonly logger: EventLogger;
  /** Silence of a holder after which another process takes its migration over. Default 15 s. */
  readonly leaseMs?: number;
  /** How often a holder moves its record and a waiting process reads it. Default `leaseMs` / 5. */
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
}

/** Why a holder's run was stopped: another process took its migration over. */
const lostLease = new Error("another process took the migration over");

/**
 * Applies the migrations not recorded as done, in order, each once, and resolves once every
 * one is done (by this process or another). Rejects with a migration's failure (its record is
 * released, so the next start, here or elsewhere, runs it again) or the signal's reason.
 */
export async function migrateDocumentStore(
  store: DocumentStore,
  migrations: readonly DocumentMigration[],
  options: MigrateOptions,
): Promise<void> {
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1) {
      throw new TypeError(
        `document migration ${i + 1} has version ${migration.version}: number them 1, 2, 3…`,
      );
    }
  });
  const leaseMs = options.leaseMs ?? 15_000;
  const pollMs = options.pollMs ?? Math.max(1, Math.floor(leaseMs / 5));
  if (!(pollMs < leaseMs)) throw new RangeError(`pollMs (${pollMs}) must be below leaseMs (${leaseMs})`);
  const records = await store.collection(migrationRecordsSpec);
  const holder = randomUUID();
  const context: RunContext = { records, holder, leaseMs, pollMs, ...options };
  for (const migration of migrations) await apply(context, migration);
}

interface RunContext extends MigrateOptions {
  readonly records: Collection<MigrationRecord>;
  readonly holder: string;
  readonly leaseMs: number;
  readonly pollMs: number;
}

/** Waits until `migration` is done, running it whenever this process holds it. */
async function apply(context: RunContext, migration: DocumentMigration): Promise<void> {
  const { records, holder, signal } = context;
  /** The record's version as last read, and since when (this process's clock) it has not moved. */
  let seen: { version: number; since: number } | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const record = await records.get(migration.version, signal);
    let held: MigrationRecord | undefined;
    if (record === undefined) {
      held = { _id: migration.version, _v: 1, description: migration.description, state: "running", holder };
      try {
        await records.insert(held, signal);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        held = undefined; // another process took it first
      }
    } else if (record.state === "done") {
      return;
    } else {
      const now = performance.now();
      if (seen?.version !== record._v) seen = { version: record._v, since: now };
      if (record.holder === "" || now - seen.since >= context.leaseMs) {
        const next = { ...record, _v: record._v + 1, holder };
        if (await records.swap(next, record._v, signal)) {
          if (record.holder !== "") {
            context.logger.warn(
              { version: migration.version, description: migration.description },
              "taking over a document migration whose holder went silent",
            );
          }
          held = next;
        }
      }
    }
    if (held !== undefined && (await hold(context, migration, held))) return;
    await delay(context.pollMs, undefined, signal === undefined ? {} : { signal });
  }
}

/**
 * Runs `migration` while holding its record, moving the record's version every `pollMs`.
 * Resolves true once it recorded the migration as done, false when another process took it
 * over (that one finishes it). Rejects with the run's failure, the record released first.
 */
async function hold(
  context: RunContext,
  migration: DocumentMigration,
  record: MigrationRecord,
): Promise<boolean> {
  const { records } = context;
  const started = performance.now();
  const run = new AbortController();
  const abandon = (): void => run.abort(context.signal?.reason);
  context.signal?.addEventListener("abort", abandon, { once: true });
  let current = record;
  /** Set by the heartbeat that found the record taken (a closure's write: a field, not a local). */
  const lease = { lost: false };
  const beating = new AbortController();
  const heartbeat = (async () => {
    for (;;) {
      // Resolves early (and returns) once the run has ended.
      const ended = await delay(context.pollMs, false, { signal: beating.signal }).catch(() => true);
      if (ended) return;
      try {
        const next = { ...current, _v: current._v + 1 };
        if (await records.swap(next, current._v)) current = next;
        else {
          lease.lost = true;
          run.abort(lostLease);
          return;
        }
      } catch {
        // The store is away: the next beat tries again; a holder that stays silent is replaced.
      }
    }
  })();
  const stopBeating = async (): Promise<void> => {
    beating.abort();
    await heartbeat;
    context.signal?.removeEventListener("abort", abandon);
  };
  try {
    await migration.run(run.signal);
  } catch (error) {
    await stopBeating();
    if (lease.lost) return false;
    // Released, so that the next process need not wait out the lease; best effort.
    await records.swap({ ...current, _v: current._v + 1, holder: "" }, current._v).catch(() => false);
    throw error;
  }
  await stopBeating();
  if (lease.lost) return false;
  const done = { ...current, _v: current._v + 1, state: "done" as const, doneAt: new Date().toISOString() };
  if (!(await records.swap(done, current._v, context.signal))) return false;
  context.logger.info(
    {
      version: migration.version,
      description: migration.description,
      durationMs: Math.round(performance.now() - started),
    },
    "document migration applied",
  );
  return true;
}
