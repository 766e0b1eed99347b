/**
 * Deleted accounts, whose tokens every service refuses (ADR 0034).
 * A token keeps its signature and expiry after its account is deleted, and Envoy's
 * jwt_authn checks nothing else, so the refusal happens in the services: the access interceptor
 * asks `isRevoked(caller.userId)`, a set lookup on the hot path.
 *
 * Each process learns deletions from USER_DELETED through its own consumer group, so it works
 * with any number of processes and replicas; what it learned is written to its own database
 * (`revoked_accounts`, one insert per deleted account) and read back at start, so a restart
 * forgets nothing. Replicas of one service share the group (each event reaches one of them) and
 * the database. The replica that learned a deletion then moves a version
 * (`revoked_accounts_version`, one document), and every replica reads that one document each
 * `pollIntervalMs` (1 s in a service process) and re-reads the list only when it moved
 * (ADR 0092): every replica refuses a deleted account's tokens within about a poll interval of
 * the event's arrival, and a poll costs one read by id, however many accounts were deleted.
 */
import { createPeriodicTask, type PeriodicTask } from "../background/periodic-task.js";
import { startConsumer } from "../events/event-consumer.js";
import type { EventBus, Subscription } from "../events/event-bus.js";
import type { EventLogger } from "../events/event-logger.js";
import { eventContract, parseEventData } from "../events/event-factory.js";
import { metricsOnly, untraced, type ServiceTelemetry } from "../telemetry/telemetry.js";
import { changeDocument } from "../store/change-document.js";
import {
  DuplicateKeyError,
  type Collection,
  type CollectionSpec,
  type DocumentStore,
  type StoredDocument,
  type VersionedDocument,
} from "../store/document-store.js";
import { UserDeletedSchema } from "../../gen/commerce/events/v1/auth_events_pb.js";

/** What the access interceptor asks. */
export interface RevokedAccounts {
  /** True when the account `userId` was deleted: its tokens are refused. */
  isRevoked(userId: number): boolean;
}

/** A host that knows of no deleted account (tests of the host's own plumbing). */
export const noRevokedAccounts: RevokedAccounts = { isRevoked: () => false };

/** Revoked accounts kept up to date from USER_DELETED; started before the process serves. */
export interface RevocationFeed extends RevokedAccounts {
  /** Loads what the database holds, then follows the events. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface RevocationFeedOptions {
  /** The process's own database. */
  readonly store: DocumentStore;
  readonly bus: EventBus;
  /** The consumer group: one per service (its replicas share it), e.g. `order-revocations`. */
  readonly group: string;
  readonly logger: EventLogger;
  /**
   * How often the version is read for what other replicas of the service learned. Unset: the
   * process has no replicas (the embedded platform), and its own consumer hears everything.
   */
  readonly pollIntervalMs?: number;
  /**
   * The process's: its consumer's metrics (lag, blocked partitions, dead letters) are measured
   * there, its records not traced. None: nothing measured.
   */
  readonly telemetry?: ServiceTelemetry;
}

/** One deleted account. */
export interface RevokedAccountDocument extends StoredDocument {
  /** The deleted account's user id. */
  readonly _id: number;
  readonly email: string;
  readonly deletedAt: string;
}

/** Where a feed keeps the deleted accounts it learned (the Auth service reads them: ADR 0101). */
export const revokedAccountsSpec: CollectionSpec<RevokedAccountDocument> = { name: "revoked_accounts" };

/**
 * The version of `revoked_accounts`: one document whose `_v` moves after each deletion learned,
 * so that replicas re-read the list only when it changed.
 */
interface RevocationsVersionDocument extends VersionedDocument {
  readonly _id: typeof versionId;
}

const versionId = "revoked_accounts";
const versionSpec: CollectionSpec<RevocationsVersionDocument> = { name: "revoked_accounts_version" };

/** Moves the version by one (a compare-and-set, which concurrent replicas retry). */
async function moveVersion(
  versions: Collection<RevocationsVersionDocument>,
  signal: AbortSignal,
): Promise<void> {
  try {
    await versions.insert({ _id: versionId, _v: 1 }, signal);
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    await changeDocument(versions, versionId, (current) => ({ ...current }), signal);
  }
}

export async function createRevocationFeed(options: RevocationFeedOptions): Promise<RevocationFeed> {
  const revoked = await options.store.collection(revokedAccountsSpec);
  const versions = await options.store.collection(versionSpec);
  const known = new Set<number>();
  const deletedType = eventContract(UserDeletedSchema).type;
  /** The version the last full read saw; the list is read again only when it moves. */
  let seenVersion: number | undefined;
  let subscription: Subscription | undefined;
  // One read at a time, however slow the store: the runtime's periodic task never overlaps.
  const poll: PeriodicTask | undefined =
    options.pollIntervalMs === undefined
      ? undefined
      : createPeriodicTask({
          intervalMs: options.pollIntervalMs,
          run: refresh,
          logger: options.logger,
          failureMessage: "could not re-read revoked accounts; the next poll retries",
          recoveryMessage: "re-reading revoked accounts works again",
        });

  /** Reads the list if the version moved since the last read (the version first, so none is missed). */
  async function refresh(signal?: AbortSignal): Promise<void> {
    const version = (await versions.get(versionId, signal))?._v ?? 0;
    if (version === seenVersion) return;
    for (const account of await revoked.find({}, signal === undefined ? {} : { signal }))
      known.add(account._id);
    seenVersion = version;
  }

  return {
    isRevoked: (userId) => known.has(userId),

    async start() {
      await refresh();
      subscription = await startConsumer(options.bus, {
        group: options.group,
        topics: [eventContract(UserDeletedSchema).topic],
        logger: options.logger,
        // Process plumbing (each process's copy of one fact), not a service's processing.
        telemetry: options.telemetry === undefined ? untraced : metricsOnly(options.telemetry),
        handler: async (record, signal) => {
          if (record.type !== deletedType) return;
          const event = parseEventData(UserDeletedSchema, record);
          try {
            await revoked.insert(
              { _id: event.userId, email: event.email, deletedAt: event.deletedAt },
              signal,
            );
          } catch (error) {
            if (!(error instanceof DuplicateKeyError)) throw error; // learned before
          }
          known.add(event.userId);
          // Also after a duplicate: a crash between the insert and this left it unmoved, and
          // the event came again because its handling had not ended.
          await moveVersion(versions, signal);
        },
      });
      poll?.start();
    },

    async stop() {
      await poll?.stop();
      await subscription?.close();
    },
  };
}
