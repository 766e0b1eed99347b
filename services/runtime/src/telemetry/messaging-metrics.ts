/**
 * Consumer metrics per consumer group, named per the semantic conventions (1.45 of the
 * JavaScript package, messaging metrics still in development there):
 *   - `messaging.process.duration` (s): how long the handler took per record, or per batch,
 *     retries included (as the CONSUMER span), `error.type` when it failed;
 *   - `messaging.client.consumed.messages` (`{message}`): records handed to the handler;
 *   - `commerce.messaging.consumer.lag` (`{message}`): per partition, how many records the
 *     group has still to consume. The conventions define no lag metric (the older
 *     `messaging.kafka.consumer.lag` was Kafka's own and was dropped), and this one must cover
 *     the embedded bus too: hence our own namespace (ADR 0065).
 * Attributes: `messaging.system`, `messaging.destination.name` (the topic),
 * `messaging.consumer.group.name`, `messaging.operation.name` (`process`), and for the lag
 * `messaging.destination.partition.id`. Never the key or the payload.
 */
import type { Attributes, Meter } from "@opentelemetry/api";
import { performance } from "node:perf_hooks";
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
        error === undefined
          ? attributes
          : { ...attributes, "error.type": error instanceof Error ? error.name : "unknown" },
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
