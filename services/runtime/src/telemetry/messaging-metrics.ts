/**
 * Consumer metrics per consumer group, named per the semantic conventions (1.45 of the
 * JavaScript package, messaging metrics still in development there):
 *   - `messaging.process.duration` (s): how long the handler took per record, or per batch,
 *     retries included (as the CONSUMER span), `error.type` when it failed;
 *   - `messaging.client.consumed.messages` (`{message}`): records handed to the handler;
 *   - `commerce.messaging.consumer.lag` (`{message}`): per partition, how many records the
 *     group has still to consume. The conventions define no lag metric (the older
 *     `messaging.kafka.consumer.lag` was Kafka's own and was dropped), and this one must cover
 *     the embedded bus too: hence our own namespace (ADR 0065);
 *   - `commerce.messaging.consumer.blocked` (s): per partition whose current record keeps
 *     failing, how long it has been blocked; 0 once it moves again (ADR 0110);
 *   - `commerce.messaging.consumer.dead_letters` (`{message}`): records the group parked on its
 *     dead-letter topic, by the topic they came from and `error.type`.
 * Attributes: `messaging.system`, `messaging.destination.name` (the topic),
 * `messaging.consumer.group.name`, `messaging.operation.name` (`process`), and for the lag and
 * the blocked partitions `messaging.destination.partition.id`. Never the key or the payload.
 */
import type { Attributes, Meter } from "@opentelemetry/api";
import { performance } from "node:perf_hooks";
import type { BlockedPartition } from "../events/blocked-partitions.js";
import type { BatchHandler, EventBus, EventHandler } from "../events/event-bus.js";
import { durationBucketsSeconds } from "./duration-buckets.js";
import type { ServiceTelemetry } from "./telemetry.js";

interface ConsumerInstruments {
  readonly record: (topic: string, count: number, seconds: number, error: unknown) => void;
}

function consumerInstruments(meter: Meter, system: string, group: string): ConsumerInstruments {
  const duration = meter.createHistogram("messaging.process.duration", {
    description: "Duration of processing a record (or a batch) by a consumer group",
    unit: "s",
    advice: { explicitBucketBoundaries: [...durationBucketsSeconds] },
  });
  const consumed = meter.createCounter("messaging.client.consumed.messages", {
    description: "Records handed to a consumer group's handler",
    unit: "{message}",
  });
  return {
    record(topic, count, seconds, error) {
      const attributes: Attributes = {
        "messaging.system": system,
        "messaging.destination.name": topic,
        "messaging.consumer.group.name": group,
        "messaging.operation.name": "process",
      };
      consumed.add(count, attributes);
      // A new object: the SDK keeps the one it was given.
      duration.record(
        seconds,
        error === undefined ? attributes : { ...attributes, "error.type": errorType(error) },
      );
    },
  };
}

/** `handler`, measured per record; `handler` itself with metrics off. */
export function withConsumerMetrics(
  handler: EventHandler,
  telemetry: ServiceTelemetry,
  system: string,
  group: string,
): EventHandler {
  if (!telemetry.metered) return handler;
  const instruments = consumerInstruments(telemetry.meter, system, group);
  return async (record, signal) => {
    const started = performance.now();
    let failure: unknown;
    try {
      await handler(record, signal);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      instruments.record(record.topic, 1, (performance.now() - started) / 1000, failure);
    }
  };
}

/** `handler`, measured per batch (its records counted); `handler` itself with metrics off. */
export function withBatchConsumerMetrics(
  handler: BatchHandler,
  telemetry: ServiceTelemetry,
  system: string,
  group: string,
): BatchHandler {
  if (!telemetry.metered) return handler;
  const instruments = consumerInstruments(telemetry.meter, system, group);
  return async (batch, signal) => {
    const started = performance.now();
    let failure: unknown;
    try {
      await handler(batch, signal);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      instruments.record(batch.topic, batch.records.length, (performance.now() - started) / 1000, failure);
    }
  };
}

/**
 * Observes `group`'s lag on `topics` at each collection: one `bus.lag` call (on Kafka, one
 * committed-offsets and one watermarks request per topic) per collection, so no more often than
 * the export interval. A partition the group has committed nothing on counts from its earliest
 * record, as a new group starts there; so does one whose committed offset retention passed.
 * Returns the function that stops observing (when the consumer stops). Nothing with metrics off.
 */
export function observeConsumerLag(
  telemetry: ServiceTelemetry,
  bus: EventBus,
  group: string,
  topics: readonly string[],
): () => void {
  if (!telemetry.metered) return () => undefined;
  const gauge = telemetry.meter.createObservableGauge("commerce.messaging.consumer.lag", {
    description: "Records a consumer group has still to consume, per partition",
    unit: "{message}",
  });
  const observe = async (result: { observe(value: number, attributes: Attributes): void }) => {
    for (const partition of await bus.lag(group, topics)) {
      const end = BigInt(partition.end);
      const start = BigInt(partition.start);
      const position = partition.committed === undefined ? start : BigInt(partition.committed);
      const lag = end - (position > start ? position : start);
      result.observe(Number(lag > 0n ? lag : 0n), {
        "messaging.system": bus.messagingSystem,
        "messaging.destination.name": partition.topic,
        "messaging.destination.partition.id": String(partition.partition),
        "messaging.consumer.group.name": group,
      });
    }
  };
  gauge.addCallback(observe);
  return () => gauge.removeCallback(observe);
}

/** The `error.type` of a failure: its error's name. */
function errorType(error: unknown): string {
  return error instanceof Error ? error.name : "unknown";
}

/**
 * Observes `blocked()` at each collection: for each partition it names, the seconds since its
 * current record first failed; 0 for a partition it named before and no longer does (a
 * cumulative gauge keeps a point's last value until it is observed again). Returns the function
 * that stops observing. Nothing with metrics off.
 */
export function observeBlockedPartitions(
  telemetry: ServiceTelemetry,
  system: string,
  group: string,
  blocked: () => readonly BlockedPartition[],
): () => void {
  if (!telemetry.metered) return () => undefined;
  const gauge = telemetry.meter.createObservableGauge("commerce.messaging.consumer.blocked", {
    description: "How long a partition has been held by a record whose handler keeps failing (0: it moves)",
    unit: "s",
  });
  /** The attributes of every partition reported blocked once, by topic and partition. */
  const reported = new Map<string, Attributes>();
  const observe = (result: { observe(value: number, attributes: Attributes): void }) => {
    const now = Date.now();
    const seconds = new Map<string, number>();
    for (const partition of blocked()) {
      const key = `${partition.topic}\u0000${partition.partition}`;
      seconds.set(key, Math.max(0, (now - partition.since.getTime()) / 1000));
      if (!reported.has(key)) {
        reported.set(key, {
          "messaging.system": system,
          "messaging.destination.name": partition.topic,
          "messaging.destination.partition.id": String(partition.partition),
          "messaging.consumer.group.name": group,
        });
      }
    }
    for (const [key, attributes] of reported) result.observe(seconds.get(key) ?? 0, attributes);
  };
  gauge.addCallback(observe);
  return () => gauge.removeCallback(observe);
}

/**
 * The counter of `group`'s dead letters: call it with the topic a parked record came from and
 * why it was parked. A no-op with metrics off.
 */
export function countDeadLetters(
  telemetry: ServiceTelemetry,
  system: string,
  group: string,
): (topic: string, error: unknown) => void {
  if (!telemetry.metered) return () => undefined;
  const counter = telemetry.meter.createCounter("commerce.messaging.consumer.dead_letters", {
    description:
      "Records a consumer group parked on its dead-letter topic: they can never be handled as they are",
    unit: "{message}",
  });
  return (topic, error) => {
    counter.add(1, {
      "messaging.system": system,
      "messaging.destination.name": topic,
      "messaging.consumer.group.name": group,
      "error.type": errorType(error),
    });
  };
}
