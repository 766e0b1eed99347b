/**
 * Test support: the payment events published so far. Waits until the payment outbox is drained,
 * then publishes a marker on payment-events and waits for it to reach the spy: every event
 * written before it has reached the spy by then (one topic, delivered in order).
 */
import { randomUUID } from "node:crypto";
import type { EventBus, EventRecord } from "@commerce/runtime/events";
import type { DocumentStore } from "@commerce/runtime/store";
import { eventually } from "@commerce/runtime/testing";
import { openPaymentCollections } from "../payment-store.js";

export async function publishedPaymentEvents(
  store: DocumentStore,
  bus: Pick<EventBus, "publish">,
  spied: readonly EventRecord[],
  timeoutMs: number,
): Promise<EventRecord[]> {
  const { payments } = await openPaymentCollections(store);
  await eventually(
    async () => ((await payments.count({ outboxPending: true })) === 0 ? true : undefined),
    timeoutMs,
    "the payment outbox to drain",
  );
  const marker: EventRecord = {
    id: randomUUID(),
    type: "TEST_MARKER",
    source: "/test",
    time: new Date().toISOString(),
    subject: "marker",
    topic: "payment-events",
    data: "{}",
  };
  await bus.publish([marker]);
  await eventually(() => (spied.some((e) => e.id === marker.id) ? true : undefined), timeoutMs, "the marker");
  return spied.filter((e) => e.type !== "TEST_MARKER");
}
