import { expect } from "chai";
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type SpanContext } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  type ReadableSpan,
  type Sampler,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { PlatformTracer } from "./platform-tracer.js";

/** A tracer whose every ended span is kept, sampled or not (the SDK's processors keep the sampled only). */
function tracerWith(sampler: Sampler): { tracer: PlatformTracer; ended: () => ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  const processor: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => ended.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const tracer = new PlatformTracer(
    {
      resource: resourceFromAttributes({ "service.name": "commerce-order" }),
      instrumentationScope: { name: "commerce-platform" },
      processor,
    },
    sampler,
  );
  return { tracer, ended: () => ended };
}

const remote: SpanContext = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
  traceState: new TraceState("vendor=value"),
  isRemote: true,
};

describe("PlatformTracer", () => {
  it("leaves out what the sampler leaves out: a non-recording span with fresh ids and no flag, nothing ended", () => {
    const { tracer, ended } = tracerWith(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const span = tracer.startSpan("GET", {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": "GET" },
    });
    const context = span.spanContext();
    expect(span.isRecording()).to.equal(false);
    expect(context.traceId)
      .to.match(/^[0-9a-f]{32}$/)
      .and.not.match(/^0+$/);
    expect(context.spanId)
      .to.match(/^[0-9a-f]{16}$/)
      .and.not.match(/^0+$/);
    expect(context.traceFlags).to.equal(TraceFlags.NONE);
    // Its child is left out too, in the same trace.
    const child = tracer.startSpan("child", {}, trace.setSpan(ROOT_CONTEXT, span));
    expect(child.spanContext().traceId).to.equal(context.traceId);
    expect(child.isRecording()).to.equal(false);
    span.end();
    child.end();
    expect(ended()).to.deep.equal([]);
  });

  it("continues a remote sampled parent: its trace, its state, the parent named, sampled", () => {
    const { tracer, ended } = tracerWith(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const span = tracer.startSpan(
      "consume",
      { kind: SpanKind.CONSUMER },
      trace.setSpanContext(ROOT_CONTEXT, remote),
    );
    span.end();
    const [recorded] = ended();
    expect(recorded?.spanContext().traceId).to.equal(remote.traceId);
    expect(recorded?.spanContext().traceFlags).to.equal(TraceFlags.SAMPLED);
    expect(recorded?.spanContext().traceState?.serialize()).to.equal("vendor=value");
    expect(recorded?.spanContext().spanId).to.not.equal(remote.spanId);
    expect(recorded?.parentSpanContext).to.deep.equal(remote);
    expect(recorded?.kind).to.equal(SpanKind.CONSUMER);
  });

  it("starts a new trace for a root span, whatever its context holds", () => {
    const { tracer, ended } = tracerWith(new AlwaysOnSampler());
    tracer.startSpan("batch", { root: true }, trace.setSpanContext(ROOT_CONTEXT, remote)).end();
    const [recorded] = ended();
    expect(recorded?.spanContext().traceId).to.not.equal(remote.traceId);
    expect(recorded?.parentSpanContext).to.equal(undefined);
  });

  it("records a span the sampler records but does not sample, with the sampler's attributes and trace state", () => {
    const recordOnly: Sampler = {
      shouldSample: () => ({
        decision: SamplingDecision.RECORD,
        attributes: { "sampler.said": "record" },
        traceState: new TraceState("sampler=1"),
      }),
      toString: () => "record only",
    };
    const { tracer, ended } = tracerWith(recordOnly);
    const span = tracer.startSpan("recorded", { attributes: { own: 1 } });
    expect(span.isRecording()).to.equal(true);
    span.end();
    const [recorded] = ended();
    expect(recorded?.spanContext().traceFlags).to.equal(TraceFlags.NONE);
    expect(recorded?.spanContext().traceState?.serialize()).to.equal("sampler=1");
    expect(recorded?.attributes).to.deep.equal({ own: 1, "sampler.said": "record" });
  });

  it("runs startActiveSpan's function with the new span and returns what it returns", () => {
    const { tracer } = tracerWith(new AlwaysOnSampler());
    const returned = tracer.startActiveSpan("active", { kind: SpanKind.INTERNAL }, (span) => {
      span.end();
      return span.spanContext().spanId;
    });
    expect(returned).to.match(/^[0-9a-f]{16}$/);
  });
});
