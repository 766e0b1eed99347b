/**
 * What every bus adapter checks the same way before it touches its storage: topic and group
 * names (a subset of Kafka's rules that is also safe as a file name), the bounds of a batch
 * subscription, and the records of one `publish`, validated and grouped by topic in their
 * original order.
 */
import type { EventRecord } from "./event-bus.js";
import { normalizeEventRecord } from "./topic-log.js";

const namePattern = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,248}$/;

/** Throws a TypeError naming the bad name, prefixed by the operation (`publish: …`) if given. */
export function assertBusName(kind: "topic" | "group", name: string, operation?: string): void {
  if (namePattern.test(name)) return;
  const prefix = operation === undefined ? "" : `${operation}: `;
  throw new TypeError(`${prefix}invalid ${kind} name ${JSON.stringify(name)}`);
}

/** Throws a RangeError unless `maxRecords` is a positive integer and `maxWaitMs` a finite number >= 0. */
export function assertBatchBounds(maxRecords: number, maxWaitMs: number): void {
  if (!Number.isSafeInteger(maxRecords) || maxRecords < 1) {
    throw new RangeError(`subscribeBatch: maxRecords must be a positive integer, got ${maxRecords}`);
  }
  if (!Number.isFinite(maxWaitMs) || maxWaitMs < 0) {
    throw new RangeError(`subscribeBatch: maxWaitMs must be a finite number >= 0, got ${maxWaitMs}`);
  }
}

/** Validates and groups records by topic, keeping their order within each topic. */
export function groupByTopic(records: readonly EventRecord[]): Map<string, EventRecord[]> {
  const byTopic = new Map<string, EventRecord[]>();
  for (const candidate of records) {
    const record = normalizeEventRecord(candidate);
    if (record === undefined) throw new TypeError("publish: not an event record (a string field is missing)");
    assertBusName("topic", record.topic, "publish");
    const batch = byTopic.get(record.topic);
    if (batch === undefined) byTopic.set(record.topic, [record]);
    else batch.push(record);
  }
  return byTopic;
}
