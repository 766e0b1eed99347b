import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnvReader } from "../config/env-reader.js";
import { createEmbeddedBus } from "../events/embedded-bus.js";
import type { EventBus, EventRecord } from "../events/event-bus.js";
import { createLogger } from "../logging/logger.js";
import { createMetricsProbe } from "../testing/metrics-probe.js";
import { consumerMetricsContract } from "./consumer-metrics.contract.js";
import { withBatchConsumerMetrics, withConsumerMetrics } from "./messaging-metrics.js";
import { startTelemetry, untraced } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

const record: EventRecord = {
  id: "e-1",
  type: "ORDER_PLACED",
  source: "/commerce/order",
  time: "2024-05-01T10:00:00.000Z",
  subject: "order-1",
  topic: "order-events",
  data: "{}",
};

describe("consumer metrics", () => {
  describe("on the embedded bus", () => {
    let dataDir: string;
    let bus: EventBus | undefined;
    beforeEach(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "messaging-metrics-"));
    });
    afterEach(async () => {
      await bus?.close();
      await rm(dataDir, { recursive: true, force: true });
    });

    consumerMetricsContract(async () => {
      bus = await createEmbeddedBus({
        dataDir,
        logger: createLogger("silent", "test"),
        redeliveryDelayMs: 10,
        maxRedeliveryDelayMs: 500,
      });
      return bus;
    });
  });

  it("records a failed delivery with its error.type, and counts a batch's records", async () => {
    const probe = createMetricsProbe();
    const settings = readTelemetrySettings(new EnvReader({ OTEL_METRICS_EXPORTER: "otlp" }));
    const telemetry = startTelemetry(settings, { singleService: false, metricReader: probe.readerFor });
    const service = telemetry.forService("notification");
    const failing = withConsumerMetrics(
      () => Promise.reject(new RangeError("no such template")),
      service,
      "kafka",
      "notification-service",
    );
    const error = await failing(record, new AbortController().signal).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).to.be.instanceOf(RangeError);
    const batch = withBatchConsumerMetrics(() => Promise.resolve(), service, "kafka", "analytics");
    await batch(
      { topic: "order-events", partition: 2, records: [record, record] },
      new AbortController().signal,
    );

    const common = {
      "messaging.system": "kafka",
      "messaging.destination.name": "order-events",
      "messaging.operation.name": "process",
    };
    const processing = await probe.metric("commerce-notification", "messaging.process.duration");
    expect(processing?.points.map((point) => point.attributes)).to.have.deep.members([
      { ...common, "messaging.consumer.group.name": "notification-service", "error.type": "RangeError" },
      { ...common, "messaging.consumer.group.name": "analytics" },
    ]);
    const consumed = await probe.metric("commerce-notification", "messaging.client.consumed.messages");
    expect(consumed?.points).to.have.deep.members([
      { attributes: { ...common, "messaging.consumer.group.name": "notification-service" }, value: 1 },
      { attributes: { ...common, "messaging.consumer.group.name": "analytics" }, value: 2 },
    ]);
    await telemetry.shutdown();
  });

  it("leaves the handler unwrapped with metrics off", () => {
    const handler = (): Promise<void> => Promise.resolve();
    expect(withConsumerMetrics(handler, untraced, "kafka", "g")).to.equal(handler);
    expect(withBatchConsumerMetrics(handler, untraced, "kafka", "g")).to.equal(handler);
  });
});
