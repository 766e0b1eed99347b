import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnvReader } from "../config/env-reader.js";
import { createEmbeddedBus } from "../events/embedded-bus.js";
import type { EventBus, EventRecord, Subscription } from "../events/event-bus.js";
import { startBatchConsumer, startConsumer } from "../events/event-consumer.js";
import { createLogger } from "../logging/logger.js";
import { eventually } from "../testing/eventually.js";
import { publishWithSpans } from "./messaging-spans.js";
import { startTelemetry, untraced, type ServiceTelemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";
import { traceContextOf } from "./trace-context.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const causeId = "00f067aa0ba902b7";
const quiet = createLogger("silent", "test");

function record(n: number, traced: boolean): EventRecord {
  return {
    id: `evt-${n}`,
    type: "ORDER_PLACED",
    source: "/commerce/order",
    time: "2024-05-01T10:00:00.000Z",
    subject: `order-${n}`,
    topic: "order-events",
    data: "{}",
    ...(traced ? { traceparent: `00-${traceId}-${causeId}-01`, tracestate: "vendor=abc" } : {}),
  };
}

describe("messaging spans", () => {
  const exporter = new InMemorySpanExporter();
  const telemetry = startTelemetry(readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" })), {
    singleService: false,
    spanProcessor: new SimpleSpanProcessor(exporter),
  });
  const notification = telemetry.forService("notification");
  let dataDir: string;
  let bus: EventBus;
  const subscriptions: Subscription[] = [];

  beforeEach(async () => {
    exporter.reset();
    dataDir = await mkdtemp(join(tmpdir(), "messaging-spans-"));
    bus = await createEmbeddedBus({
      dataDir,
      logger: quiet,
      redeliveryDelayMs: 10,
      maxRedeliveryDelayMs: 500,
    });
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) await subscription.close();
    await bus.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Consumes the group's records with `telemetry`, noting the span bound to the handler's signal. */
  async function consume(as: ServiceTelemetry, fail = false): Promise<Map<string, string | undefined>> {
    const active = new Map<string, string | undefined>();
    subscriptions.push(
      await startConsumer(bus, {
        group: "notification-service",
        topics: ["order-events"],
        logger: quiet,
        telemetry: as,
        handler: (consumed, signal) => {
          active.set(consumed.id, trace.getSpan(traceContextOf(signal))?.spanContext().spanId);
          return fail ? Promise.reject(new Error("the store broke")) : Promise.resolve();
        },
      }),
    );
    return active;
  }

  it("publishes under a PRODUCER span per record, child of the context the record names", async () => {
    const records = [record(1, true), record(2, false)];
    await publishWithSpans(notification, bus.messagingSystem, records, () => bus.publish(records));

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.kind])).to.deep.equal([
      ["send order-events", SpanKind.PRODUCER],
      ["send order-events", SpanKind.PRODUCER],
    ]);
    const [traced, root] = spans as [ReadableSpan, ReadableSpan];
    expect(traced.attributes).to.deep.equal({
      "messaging.system": "commerce_embedded_log",
      "messaging.destination.name": "order-events",
      "messaging.operation.type": "send",
      "messaging.operation.name": "send",
      "messaging.message.id": "evt-1",
    });
    expect(traced.spanContext().traceId).to.equal(traceId);
    expect(traced.parentSpanContext?.spanId).to.equal(causeId);
    expect(root.parentSpanContext).to.equal(undefined);
    expect(root.spanContext().traceId).to.not.equal(traceId);
  });

  it("marks the PRODUCER spans ERROR when the bus refuses the records", async () => {
    let failure: unknown;
    try {
      await publishWithSpans(notification, "kafka", [record(1, true)], () =>
        Promise.reject(new Error("connect ECONNREFUSED")),
      );
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(Error).with.property("message", "connect ECONNREFUSED");
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).to.equal(SpanStatusCode.ERROR);
    expect(span?.attributes).to.include({ "messaging.system": "kafka", "error.type": "Error" });
  });

  it("handles each record under a CONSUMER span, child of the record's context, bound to the handler's signal", async () => {
    const active = await consume(notification);
    await bus.publish([record(1, true)]);
    const span = await eventually(
      () => exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CONSUMER),
      5_000,
      "the consumer's span",
    );
    expect(span.name).to.equal("process order-events");
    expect(span.resource.attributes["service.name"]).to.equal("commerce-notification");
    expect(span.attributes).to.deep.equal({
      "messaging.system": "commerce_embedded_log",
      "messaging.destination.name": "order-events",
      "messaging.operation.type": "process",
      "messaging.operation.name": "process",
      "messaging.consumer.group.name": "notification-service",
      "messaging.message.id": "evt-1",
    });
    expect(span.spanContext().traceId).to.equal(traceId);
    expect(span.parentSpanContext?.spanId).to.equal(causeId);
    expect(span.spanContext().traceState?.serialize()).to.equal("vendor=abc");
    expect(active.get("evt-1")).to.equal(span.spanContext().spanId);
    expect(span.status.code).to.equal(SpanStatusCode.UNSET);
  });

  it("handles a batch under one CONSUMER span linked to each traced record", async () => {
    const batches: number[] = [];
    subscriptions.push(
      await startBatchConsumer(bus, {
        group: "analytics-processor",
        topics: ["order-events"],
        maxRecords: 10,
        maxWaitMs: 200,
        logger: quiet,
        telemetry: telemetry.forService("analytics-processor"),
        handler: (batch, signal) => {
          batches.push(batch.records.length);
          expect(trace.getSpan(traceContextOf(signal))?.isRecording()).to.equal(true);
          return Promise.resolve();
        },
      }),
    );
    await bus.publish([record(1, true), record(2, false), record(3, true)]);
    const span = await eventually(
      () => exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CONSUMER),
      5_000,
      "the batch's span",
    );
    expect(batches).to.deep.equal([3]);
    expect(span.name).to.equal("process order-events");
    expect(span.parentSpanContext).to.equal(undefined);
    expect(span.attributes).to.include({
      "messaging.operation.type": "process",
      "messaging.consumer.group.name": "analytics-processor",
      "messaging.batch.message_count": 3,
    });
    expect(span.links.map((link) => [link.context.traceId, link.context.spanId])).to.deep.equal([
      [traceId, causeId],
      [traceId, causeId],
    ]);
  });

  it("with tracing off, creates no span and runs the handler with none bound", async () => {
    const active = await consume(untraced);
    const records = [record(1, true)];
    await publishWithSpans(untraced, bus.messagingSystem, records, () => bus.publish(records));
    await eventually(() => (active.has("evt-1") ? true : undefined), 5_000, "the handler");
    expect(active.get("evt-1")).to.equal(undefined);
    expect(exporter.getFinishedSpans()).to.deep.equal([]);
  });
});
