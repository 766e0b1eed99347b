import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import { EnvReader } from "../config/env-reader.js";
import { OrderPlacedSchema } from "../../gen/commerce/events/v1/order_events_pb.js";
import { startTelemetry } from "../telemetry/telemetry.js";
import { readTelemetrySettings } from "../telemetry/telemetry-settings.js";
import { bindTraceContext, contextFromFields } from "../telemetry/trace-context.js";
import { withCause } from "./event-cause.js";
import { createEventFactory } from "./event-factory.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("withCause", () => {
  const events = createEventFactory("/commerce/order");
  const telemetry = startTelemetry(readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" })), {
    singleService: false,
    spanProcessor: new SimpleSpanProcessor(new InMemorySpanExporter()),
  });

  /** A request's signal with its SERVER span, child of a caller that sent `tracestate`. */
  function tracedCall(): { signal: AbortSignal; spanId: string } {
    const caller = contextFromFields({
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      tracestate: "vendor=abc",
    });
    const span = telemetry.forService("order").tracer.startSpan("PlaceOrder", {}, caller);
    span.end();
    const { signal } = new AbortController();
    bindTraceContext(signal, trace.setSpan(caller, span));
    return { signal, spanId: span.spanContext().spanId };
  }

  it("gives each event the W3C context of the span bound to the recording call's signal", () => {
    const { signal, spanId } = tracedCall();
    const recorded = withCause(
      [
        events.event(OrderPlacedSchema, { orderId: "o-1" }, "o-1"),
        events.event(OrderPlacedSchema, { orderId: "o-2" }, "o-2"),
      ],
      signal,
    );
    expect(recorded.map((event) => [event.subject, event.traceparent, event.tracestate])).to.deep.equal([
      ["o-1", `00-${traceId}-${spanId}-01`, "vendor=abc"],
      ["o-2", `00-${traceId}-${spanId}-01`, "vendor=abc"],
    ]);
  });

  it("keeps the cause an event names already (one handed over from another document)", () => {
    const earlier = {
      ...events.event(OrderPlacedSchema, { orderId: "o-1" }, "o-1"),
      traceparent: `00-${traceId}-1111111111111111-01`,
    };
    const [kept] = withCause([earlier], tracedCall().signal);
    expect(kept).to.equal(earlier);
  });

  it("leaves the events as they are for a call that is not traced, or none", () => {
    const entries = [events.event(OrderPlacedSchema, { orderId: "o-1" }, "o-1")];
    expect(withCause(entries, new AbortController().signal)).to.equal(entries);
    expect(withCause(entries, undefined)).to.equal(entries);
    expect(entries[0]).to.not.have.property("traceparent");
  });
});
