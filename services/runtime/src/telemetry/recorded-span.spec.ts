import { expect } from "chai";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { hrTimeToMicroseconds } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { PlatformTracer } from "./platform-tracer.js";

const resource = resourceFromAttributes({ "service.name": "commerce-product" });

function recorders(): { platform: Tracer; sdk: Tracer; ended: () => [ReadableSpan[], ReadableSpan[]] } {
  const platformSpans = new InMemorySpanExporter();
  const sdkSpans = new InMemorySpanExporter();
  const platform = new PlatformTracer(
    {
      resource,
      instrumentationScope: { name: "commerce-platform" },
      processor: new SimpleSpanProcessor(platformSpans),
    },
    new AlwaysOnSampler(),
  );
  const sdk = new BasicTracerProvider({
    resource,
    spanProcessors: [new SimpleSpanProcessor(sdkSpans)],
  }).getTracer("commerce-platform");
  return { platform, sdk, ended: () => [platformSpans.getFinishedSpans(), sdkSpans.getFinishedSpans()] };
}

/** What a reader of a finished span sees, times and ids left out (they differ run to run). */
function seen(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    parent: span.parentSpanContext?.spanId === undefined ? "none" : "some",
    attributes: span.attributes,
    status: span.status,
    events: span.events.map((event) => ({
      name: event.name,
      attributes: event.attributes,
      dropped: event.droppedAttributesCount,
    })),
    links: span.links.map((link) => ({ attributes: link.attributes, dropped: link.droppedAttributesCount })),
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
    ended: span.ended,
    resource: span.resource.attributes,
    scope: span.instrumentationScope.name,
  };
}

/** One exception for both tracers: its stack names where it was made. */
const outOfRange = new RangeError("out of range");

/** The same calls on a span of each tracer. */
function script(tracer: Tracer): void {
  const root = tracer.startSpan("root", {
    kind: SpanKind.SERVER,
    attributes: { "a.string": "x", "a.empty": [] },
  });
  root.setAttribute("a.number", 1);
  root.setAttribute("a.number", 2); // replaces, counts once
  root.setAttribute("", "no key");
  root.setAttribute("a.object", { nested: true } as never); // not an attribute value
  root.setAttribute("a.mixed", ["x", 1] as never); // not homogeneous
  root.setAttributes({ "a.bool": true, "a.list": ["p", "q"] });
  root.setStatus({ code: SpanStatusCode.ERROR, message: "UNAVAILABLE" });
  root.setStatus({ code: SpanStatusCode.UNSET }); // changes nothing
  root.updateName("GET /api/products/{product_id}");
  const child = tracer.startSpan(
    "child",
    { kind: SpanKind.CLIENT, links: [{ context: root.spanContext(), attributes: { "l.x": 1, "": 2 } }] },
    trace.setSpan(ROOT_CONTEXT, root),
  );
  for (let i = 0; i < 130; i += 1) child.setAttribute(`many.${i}`, i); // two past the limit
  for (let i = 0; i < 130; i += 1) child.addEvent(`event ${i}`, { index: i }); // the first two dropped
  const manyAttributes = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`e.${i}`, i]));
  child.addEvent("crowded", manyAttributes);
  for (let i = 0; i < 130; i += 1) child.addLink({ context: root.spanContext() });
  child.recordException(outOfRange);
  child.recordException({ code: 14, message: "unavailable" });
  child.setStatus({ code: SpanStatusCode.OK });
  child.setStatus({ code: SpanStatusCode.ERROR, message: "too late: OK is final" });
  child.end();
  child.setAttribute("after.end", 1);
  child.addEvent("after end");
  child.updateName("renamed after end");
  root.end();
}

describe("RecordedSpan", () => {
  it("keeps what the SDK's span keeps: attributes, limits, events, links, exceptions, status and name", () => {
    const { platform, sdk, ended } = recorders();
    script(platform);
    script(sdk);
    const [ours, theirs] = ended();
    expect(ours.map(seen)).to.deep.equal(theirs.map(seen));
    const [child] = ours;
    expect(child?.droppedAttributesCount).to.equal(2);
    expect(child?.events.find((event) => event.name === "exception")?.attributes).to.include({
      "exception.type": "RangeError",
      "exception.message": "out of range",
    });
  });

  it("is recording until it ends, and ends once", () => {
    const { platform, ended } = recorders();
    const span = platform.startSpan("once");
    expect(span.isRecording()).to.equal(true);
    span.end();
    span.end();
    expect(span.isRecording()).to.equal(false);
    expect(ended()[0]).to.have.length(1);
  });

  it("times itself on the wall clock to the microsecond, and honours given times", () => {
    const { platform, ended } = recorders();
    const before = Date.now() * 1_000;
    const timed: Span = platform.startSpan("timed");
    timed.addEvent("at a given time", [1_790_000_000, 500_000_000]);
    timed.end();
    const after = Date.now() * 1_000 + 1_000;
    platform.startSpan("given", { startTime: [1_790_000_000, 250_000_000] }).end([1_790_000_001, 0]);
    const [[span, given]] = ended() as [[ReadableSpan, ReadableSpan], ReadableSpan[]];
    const start = hrTimeToMicroseconds(span.startTime);
    const end = hrTimeToMicroseconds(span.endTime);
    expect(start).to.be.within(before, end);
    expect(end).to.be.at.most(after);
    expect(hrTimeToMicroseconds(span.duration)).to.be.closeTo(end - start, 1);
    expect(span.events[0]?.time).to.deep.equal([1_790_000_000, 500_000_000]);
    expect(given.startTime).to.deep.equal([1_790_000_000, 250_000_000]);
    expect(given.endTime).to.deep.equal([1_790_000_001, 0]);
    expect(given.duration).to.deep.equal([0, 750_000_000]);
  });

  it("ends no earlier than it started, when given an end before its start", () => {
    const { platform, ended } = recorders();
    platform.startSpan("backwards", { startTime: [1_790_000_001, 0] }).end([1_790_000_000, 0]);
    const [[span]] = ended() as [[ReadableSpan], ReadableSpan[]];
    expect(span.endTime).to.deep.equal([1_790_000_001, 0]);
    expect(span.duration).to.deep.equal([0, 0]);
  });
});
