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
 * the database (every replica re-reads it each `pollIntervalMs`, 1 s in a service process), so every replica refuses a
 * deleted account's tokens within about a poll interval of the event's arrival.
 */
import { createPeriodicTask, type PeriodicTask } from "../background/periodic-task.js";
import { startConsumer } from "../events/event-consumer.js";
import type { EventBus, Subscription } from "../events/event-bus.js";
import type { EventLogger } from "../events/event-logger.js";
import { eventContract, parseEventData } from "../events/event-factory.js";
import { untraced } from "../telemetry/telemetry.js";
import {
  DuplicateKeyError,
  type CollectionSpec,
  type DocumentStore,
  type StoredDocument,
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
   * How often the database is re-read for what other replicas of the service learned. Unset:
   * the process has no replicas (the embedded platform), and its own consumer hears everything.
   */
  readonly pollIntervalMs?: number;
}

/** One deleted account. */
export interface RevokedAccountDocument extends StoredDocument {
  /** The deleted account's user id. */
  readonly _id: number;
  readonly email: string;
  readonly deletedAt: string;
}

const revokedAccountsSpec: CollectionSpec<RevokedAccountDocument> = { name: "revoked_accounts" };

export async function createRevocationFeed(options: RevocationFeedOptions): Promise<RevocationFeed> {
  const revoked = await options.store.collection(revokedAccountsSpec);
  const known = new Set<number>();
  const deletedType = eventContract(UserDeletedSchema).type;
  let subscription: Subscription | undefined;
  // One read at a time, however slow the store: the runtime's periodic task never overlaps.
  const poll: PeriodicTask | undefined =
    options.pollIntervalMs === undefined
      ? undefined
      : createPeriodicTask({
          intervalMs: options.pollIntervalMs,
          run: load,
          logger: options.logger,
          failureMessage: "could not re-read revoked accounts; the next poll retries",
          recoveryMessage: "re-reading revoked accounts works again",
        });

  async function load(signal?: AbortSignal): Promise<void> {
    for (const account of await revoked.find({}, signal === undefined ? {} : { signal }))
      known.add(account._id);
  }

  return {
    isRevoked: (userId) => known.has(userId),

    async start() {
      await load();
      subscription = await startConsumer(options.bus, {
        group: options.group,
        topics: [eventContract(UserDeletedSchema).topic],
        logger: options.logger,
        // Process plumbing (each process's copy of one fact), not a service's processing.
        telemetry: untraced,
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
