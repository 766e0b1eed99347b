/**
 * A service's outbox: the collections whose documents carry its events, the relay that moves
 * them to the bus, and the recorded writes that put them there (recorded-collection.ts).
 * A service builds one, tracks its event-carrying collections through it, and starts and stops
 * it with its background work; every recorded write wakes the relay itself, so no write path
 * has to remember to.
 */
import { safetyPassIntervalMs } from "../background/periodic-task.js";
import { DuplicateKeyError, type Collection } from "../store/document-store.js";
import type { EventBus } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import type { EventCarrierDocument, OutboxCarrier, OutboxEntry } from "./outbox.js";
import { createOutboxRelay, type OutboxRelay } from "./outbox-relay.js";
import { observeOutboxBacklog } from "../telemetry/outbox-metrics.js";
import type { ServiceTelemetry } from "../telemetry/telemetry.js";
import { withCause } from "./event-cause.js";
import { createRecordedCollection, type RecordedCollection } from "./recorded-collection.js";

export interface ServiceOutboxOptions {
  readonly bus: EventBus;
  readonly logger: EventLogger;
  /**
   * The service's own (`ctx.telemetry`): the relay's publish spans and the outbox backlog
   * (`commerce.outbox.backlog`, while started) report under its name.
   */
  readonly telemetry: ServiceTelemetry;
  /**
   * Documents that only carry events: events that change no state (`record`) and events of a
   * deleted document (`RecordedCollection.delete`). Without it both throw.
   */
  readonly carriers?: Collection<EventCarrierDocument>;
  /**
   * How often the relay looks for events nobody woke it for: those another replica recorded
   * and could not publish before it crashed (ADR 0091). Default `safetyPassIntervalMs`.
   */
  readonly pollIntervalMs?: number;
  /** Documents per relay pass. Default 100. */
  readonly batchSize?: number;
}

export interface ServiceOutbox {
  /** Recorded writes to `collection`, whose events the relay publishes. Only before `start`. */
  track<T extends OutboxCarrier>(collection: Collection<T>): RecordedCollection<T>;
  /**
   * Records events that change no state (USER_LOGIN) in a carrier document of their own. Carrier
   * ids sort by the first event's time, so the relay publishes them in order.
   */
  record(events: readonly OutboxEntry[], signal?: AbortSignal): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /** Resolves once the relay found nothing pending (tests, graceful shutdown). */
  drain(signal?: AbortSignal): Promise<void>;
}

export function createServiceOutbox(options: ServiceOutboxOptions): ServiceOutbox {
  const collections: Collection<OutboxCarrier>[] = [];
  if (options.carriers !== undefined) collections.push(options.carriers);
  let relay: OutboxRelay | undefined;
  let stopObserving: (() => void) | undefined;

  /** Tells the relay what a recorded write to `collection` stored (or may have). */
  const writtenTo =
    (collection: Collection<OutboxCarrier>) =>
    (written: OutboxCarrier | OutboxCarrier["_id"]): void =>
      relay?.written(collection, written);

  function carriers(): Collection<EventCarrierDocument> {
    if (options.carriers === undefined) throw new Error("this service's outbox has no carrier collection");
    return options.carriers;
  }

  async function insertCarrier(_id: string, outbox: readonly OutboxEntry[], signal?: AbortSignal) {
    const collection = carriers();
    const carrier: EventCarrierDocument = { _id, _v: 1, outbox, outboxPending: true, outboxOnly: true };
    try {
      await collection.insert(carrier, signal);
    } catch (error) {
      // A duplicate key was handed over before; any other failure may have landed.
      if (!(error instanceof DuplicateKeyError)) writtenTo(collection)(_id);
      throw error;
    }
    writtenTo(collection)(carrier);
  }

  async function handOver(entries: readonly OutboxEntry[], signal?: AbortSignal): Promise<void> {
    const [first] = entries;
    if (first === undefined) return;
    try {
      await insertCarrier(`handover-${first.id}`, entries, signal);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error; // handed over before
    }
  }

  return {
    track<T extends OutboxCarrier>(collection: Collection<T>) {
      if (relay !== undefined) throw new Error("collections must be tracked before the outbox starts");
      collections.push(collection);
      return createRecordedCollection(collection, {
        written: writtenTo(collection),
        deleted: (id) => relay?.deleted(collection, id),
        handOver,
      });
    },

    async record(events, signal) {
      const [first] = events;
      if (first === undefined) return;
      await insertCarrier(`${first.time}-${first.id}`, withCause(events, signal), signal);
    },

    start() {
      relay ??= createOutboxRelay({
        bus: options.bus,
        collections,
        pollIntervalMs: options.pollIntervalMs ?? safetyPassIntervalMs,
        batchSize: options.batchSize ?? 100,
        logger: options.logger,
        telemetry: options.telemetry,
      });
      relay.start();
      if (options.telemetry.metered)
        stopObserving ??= observeOutboxBacklog(options.telemetry.meter, collections);
    },

    async stop() {
      stopObserving?.();
      stopObserving = undefined;
      await relay?.stop();
    },

    drain(signal) {
      if (relay === undefined) return Promise.reject(new Error("the outbox has not started"));
      return relay.drain(signal);
    },
  };
}
