import { trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { Transport } from "@connectrpc/connect";
import { createClient } from "@connectrpc/connect";
import { expect } from "chai";
import { EnvReader } from "../config/env-reader.js";
import { ProductService } from "../../gen/commerce/product/v1/product_pb.js";
import type { EventRecord } from "../events/event-bus.js";
import { inDatabaseSpan } from "./database-spans.js";
import { publishWithSpans, withConsumerSpan } from "./messaging-spans.js";
import { withClientSpans } from "./rpc-client-spans.js";
import { startTelemetry, type ServiceTelemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";
import { bindTraceContext, contextFromFields, sampledOut, traceContextOf } from "./trace-context.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const parentId = "00f067aa0ba902b7";
const unsampled = `00-${traceId}-${parentId}-00`;
const sampled = `00-${traceId}-${parentId}-01`;

/** A real tracer whose span starts are counted. */
function counting(): { telemetry: ServiceTelemetry; started: () => number } {
  const real = startTelemetry(readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" })), {
    singleService: false,
    spanProcessor: {
      onStart: () => undefined,
      onEnd: () => undefined,
      forceFlush: async () => {},
      shutdown: async () => {},
    },
  }).forService("product");
  let count = 0;
  const tracer: Tracer = {
    startSpan: (...args: Parameters<Tracer["startSpan"]>): Span => {
      count += 1;
      return real.tracer.startSpan(...args);
    },
    startActiveSpan: real.tracer.startActiveSpan.bind(real.tracer),
  };
  return { telemetry: { ...real, tracer }, started: () => count };
}

/** A peer transport that answers nothing but keeps the headers each call was sent with. */
function headerKeepingTransport(sent: Headers[]): Transport {
  return {
    unary: (_method, _signal, _timeout, header) => {
      sent.push(new Headers(header as ConstructorParameters<typeof Headers>[0]));
      return Promise.reject(new Error("not answered"));
    },
    stream: () => Promise.reject(new Error("not answered")),
  };
}

/** The signal of a call whose trace context is `ctx`. */
function callUnder(ctx: Context): AbortSignal {
  const { signal } = new AbortController();
  bindTraceContext(signal, ctx);
  return signal;
}

const database = { system: "mongodb", namespace: "commerce_product" } as const;

function record(traceparent: string): EventRecord {
  return {
    id: "evt-1",
    type: "ORDER_PLACED",
    source: "/commerce/order",
    time: "2024-05-01T10:00:00.000Z",
    subject: "order-1",
    topic: "order-events",
    data: "{}",
    traceparent,
  };
}

describe("no span under a parent its sampler left out", () => {
  it("knows a sampled-out context from a sampled one and from none", () => {
    expect(sampledOut(contextFromFields({ traceparent: unsampled }))).to.equal(true);
    expect(sampledOut(contextFromFields({ traceparent: sampled }))).to.equal(false);
    expect(sampledOut(contextFromFields({}))).to.equal(false);
  });

  it("calls a peer without a CLIENT span, passing the unsampled parent's traceparent on unchanged", async () => {
    const { telemetry, started } = counting();
    const sent: Headers[] = [];
    const products = createClient(
      ProductService,
      withClientSpans(headerKeepingTransport(sent), telemetry, "grpc"),
    );
    for (const traceparent of [unsampled, sampled]) {
      await products
        .getProduct({ productId: "p1" }, { signal: callUnder(contextFromFields({ traceparent })) })
        .catch(() => undefined);
    }
    expect(sent.map((headers) => headers.get("traceparent"))).to.have.length(2);
    expect(sent[0]?.get("traceparent")).to.equal(unsampled);
    // Sampled: a CLIENT span, whose own id the peer gets.
    expect(sent[1]?.get("traceparent")).to.match(
      new RegExp(`^00-${traceId}-(?!${parentId})[0-9a-f]{16}-01$`),
    );
    expect(started()).to.equal(1);
  });

  it("runs a database operation without a span, and makes one under a sampled parent", async () => {
    const { telemetry, started } = counting();
    const work = () => Promise.resolve("done");
    const op = () => ({ name: "find", collection: "products" });
    const under = (traceparent: string) =>
      inDatabaseSpan(telemetry.tracer, database, op, callUnder(contextFromFields({ traceparent })), work);
    expect(await under(unsampled)).to.equal("done");
    expect(started()).to.equal(0);
    expect(await under(sampled)).to.equal("done");
    expect(started()).to.equal(1);
  });

  it("publishes and consumes an unsampled request's event without spans, its context still bound in the handler", async () => {
    const { telemetry, started } = counting();
    let published = 0;
    await publishWithSpans(telemetry, "kafka", [record(unsampled)], () => {
      published += 1;
      return Promise.resolve();
    });
    expect(published).to.equal(1);
    let active: string | undefined;
    const handler = withConsumerSpan(
      (_record, signal) => {
        const spanContext = trace.getSpanContext(traceContextOf(signal));
        active = spanContext === undefined ? undefined : `${spanContext.traceId}/${spanContext.spanId}`;
        return Promise.resolve();
      },
      telemetry,
      "kafka",
      "notification-service",
    );
    await handler(record(unsampled), new AbortController().signal);
    expect(active, "the cause's context, so the events it records carry it on").to.equal(
      `${traceId}/${parentId}`,
    );
    expect(started()).to.equal(0);
    await publishWithSpans(telemetry, "kafka", [record(sampled)], () => Promise.resolve());
    await handler(record(sampled), new AbortController().signal);
    expect(started()).to.equal(2);
  });
});
