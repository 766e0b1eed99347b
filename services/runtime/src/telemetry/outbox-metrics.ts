/**
 * A service's outbox backlog, `commerce.outbox.backlog` (`{event}`): the events recorded in its
 * outbox and not yet published, observed at each collection. The conventions have no outbox, so
 * the name is in our namespace; the service is the resource's `service.name`. A healthy relay
 * keeps it near 0; a growing backlog means the bus (or the relay) is down.
 */
import type { Meter, ObservableResult } from "@opentelemetry/api";
import type { Collection } from "../store/document-store.js";
import type { OutboxCarrier } from "../events/outbox.js";

/** Pending documents read per collection and collection pass; beyond, each counts as one. */
const exactDocuments = 1_000;
/** An observation's store reads give up after this long (the collection has no signal). */
const observeTimeoutMs = 10_000;

/**
 * Observes the backlog of `collections` (the outbox's, read when observed, so collections tracked
 * later count too). Exact up to 1 000 pending documents per collection: past that, the
 * remaining ones count one event each (a lower bound), so a long outage never makes an
 * observation read the whole backlog. Returns the function that stops observing.
 */
export function observeOutboxBacklog(
  meter: Meter,
  collections: readonly Collection<OutboxCarrier>[],
): () => void {
  const gauge = meter.createObservableGauge("commerce.outbox.backlog", {
    description: "Events recorded in the service's outbox and not yet published",
    unit: "{event}",
  });
  const observe = async (result: ObservableResult) => {
    result.observe(await outboxBacklog(collections, AbortSignal.timeout(observeTimeoutMs)));
  };
  gauge.addCallback(observe);
  return () => gauge.removeCallback(observe);
}

/** The events pending in `collections`, exact up to `exactDocuments` documents per collection. */
export async function outboxBacklog(
  collections: readonly Collection<OutboxCarrier>[],
  signal: AbortSignal,
): Promise<number> {
  let events = 0;
  for (const collection of collections) {
    const pending = await collection.find({ outboxPending: true }, { limit: exactDocuments, signal });
    for (const doc of pending) events += doc.outbox.length;
    if (pending.length === exactDocuments) {
      events += (await collection.count({ outboxPending: true }, signal)) - exactDocuments;
    }
  }
  return events;
}
