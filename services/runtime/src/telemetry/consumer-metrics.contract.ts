/**
 * The consumer metrics every bus adapter must give (messaging-metrics.ts), as one mocha test
 * each adapter's spec runs: the embedded bus in messaging-metrics.spec.ts, Kafka in
 * kafka-bus.spec.ts. `open` opens a bus the caller closes.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { EnvReader } from "../config/env-reader.js";
import type { EventBus, EventRecord } from "../events/event-bus.js";
import { startConsumer } from "../events/event-consumer.js";
import type { EventLogger } from "../events/event-logger.js";
import { PermanentEventError } from "../events/permanent-event-error.js";
import { StoreUnavailableError } from "../store/document-store.js";
import { eventually } from "../testing/eventually.js";
import { createMetricsProbe, type MetricsProbe, type Point } from "../testing/metrics-probe.js";
import { startTelemetry, type Telemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

const silent: EventLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

function record(topic: string, n: number): EventRecord {
  return {
    id: `${topic}/${n}`,
    type: "ORDER_PLACED",
    source: "/commerce/metrics-test",
    time: "2024-05-01T10:00:00.000Z",
    subject: "order-1",
    topic,
    data: JSON.stringify({ n }),
  };
}

const total = (points: readonly Point[]): number =>
  points.reduce((sum, point) => sum + (typeof point.value === "number" ? point.value : point.value.count), 0);

interface Metered {
  readonly probe: MetricsProbe;
  readonly telemetry: Telemetry;
  /** A fresh topic and consumer group, named after the label. */
  readonly topic: string;
  readonly group: string;
  /** The points of the consumer's metric `name` now. */
  readonly metric: (name: string) => Promise<readonly Point[]>;
}

/** Telemetry with metrics on (no traces), read through a probe, and fresh names for a test. */
function metered(label: string): Metered {
  const probe = createMetricsProbe();
  const settings = readTelemetrySettings(
    new EnvReader({ OTEL_METRICS_EXPORTER: "otlp", OTEL_TRACES_EXPORTER: "none" }),
  );
  return {
    probe,
    telemetry: startTelemetry(settings, { singleService: false, metricReader: probe.readerFor }),
    topic: `${label}-${randomUUID().slice(0, 8)}`,
    group: `${label}-group-${randomUUID().slice(0, 8)}`,
    metric: async (name) => (await probe.metric("commerce-consumer", name))?.points ?? [],
  };
}

export function consumerMetricsContract(open: () => Promise<EventBus>, timeoutMs = 5_000): void {
  it("measures a consumer group's lag per partition, its processing time and its consumed records", async () => {
    const bus = await open();
    const { probe, telemetry, topic, group, metric } = metered("metrics");
    await bus.publish([record(topic, 1), record(topic, 2), record(topic, 3)]);
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    const subscription = await startConsumer(bus, {
      group,
      topics: [topic],
      telemetry: telemetry.forService("consumer"),
      logger: silent,
      handler: async (event) => {
        await gate;
        handled.push(event.id);
      },
    });
    try {
      const group_ = {
        "messaging.system": bus.messagingSystem,
        "messaging.destination.name": topic,
        "messaging.consumer.group.name": group,
      };
      // Nothing committed yet (the first record waits in the handler): all three are behind.
      const lag = await probe.metric("commerce-consumer", "commerce.messaging.consumer.lag");
      expect(lag?.unit).to.equal("{message}");
      const behind = lag?.points.filter((point) => point.value !== 0) ?? [];
      expect(behind).to.have.length(1);
      expect(behind[0]?.value).to.equal(3);
      expect(behind[0]?.attributes).to.include(group_);
      expect(behind[0]?.attributes["messaging.destination.partition.id"])
        .to.be.a("string")
        .that.matches(/^\d+$/);
      for (const point of lag?.points ?? []) {
        expect(Object.keys(point.attributes).sort()).to.deep.equal([
          "messaging.consumer.group.name",
          "messaging.destination.name",
          "messaging.destination.partition.id",
          "messaging.system",
        ]);
      }

      release();
      await eventually(() => (handled.length === 3 ? true : undefined), timeoutMs, "three records handled");
      await eventually(
        async () =>
          (await metric("commerce.messaging.consumer.lag")).every((p) => p.value === 0) ? true : undefined,
        timeoutMs,
        "no lag",
      );
      const processing = await probe.metric("commerce-consumer", "messaging.process.duration");
      expect(processing?.unit).to.equal("s");
      expect(processing?.points.map((point) => point.attributes)).to.deep.equal([
        { ...group_, "messaging.operation.name": "process" },
      ]);
      expect(total(processing?.points ?? [])).to.equal(3);
      const consumed = await probe.metric("commerce-consumer", "messaging.client.consumed.messages");
      expect(consumed?.unit).to.equal("{message}");
      expect(consumed?.points).to.deep.equal([
        { attributes: { ...group_, "messaging.operation.name": "process" }, value: 3 },
      ]);
    } finally {
      release();
      await subscription.close();
    }
    await telemetry.shutdown();
  });

  it("exports a blocked partition with how long it has been blocked, and counts the group's dead letters", async () => {
    const bus = await open();
    const { probe, telemetry, topic, group, metric } = metered("blocked");
    let storeDown = true;
    const handled: string[] = [];
    const subscription = await startConsumer(bus, {
      group,
      topics: [topic],
      telemetry: telemetry.forService("consumer"),
      logger: silent,
      handler: (event) => {
        if (event.id === record(topic, 1).id) return Promise.reject(new PermanentEventError("unreadable"));
        if (storeDown) return Promise.reject(new StoreUnavailableError(new Error("connect ECONNREFUSED")));
        handled.push(event.id);
        return Promise.resolve();
      },
    });
    try {
      await bus.publish([record(topic, 1), record(topic, 2)]);
      const blocked = await eventually(
        async () => {
          const points = await metric("commerce.messaging.consumer.blocked");
          return points.some((point) => typeof point.value === "number" && point.value >= 1)
            ? points
            : undefined;
        },
        timeoutMs,
        "a partition blocked for a second",
      );
      expect(blocked).to.have.length(1);
      expect(blocked[0]?.attributes).to.deep.include({
        "messaging.system": bus.messagingSystem,
        "messaging.destination.name": topic,
        "messaging.consumer.group.name": group,
      });
      const deadLetters = await probe.metric("commerce-consumer", "commerce.messaging.consumer.dead_letters");
      expect(deadLetters?.unit).to.equal("{message}");
      expect(deadLetters?.points).to.deep.equal([
        {
          attributes: {
            "messaging.system": bus.messagingSystem,
            "messaging.destination.name": topic,
            "messaging.consumer.group.name": group,
            "error.type": "PermanentEventError",
          },
          value: 1,
        },
      ]);

      storeDown = false;
      await eventually(
        () => (handled.length === 1 ? true : undefined),
        timeoutMs,
        "the blocked record handled",
      );
      expect((await metric("commerce.messaging.consumer.blocked")).map((point) => point.value)).to.deep.equal(
        [0],
      );
    } finally {
      await subscription.close();
    }
    await telemetry.shutdown();
  });
}
