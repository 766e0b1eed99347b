import { expect } from "chai";
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { encodeTraceRequest } from "./otlp-trace-request.js";
import { PlatformTracer } from "./platform-tracer.js";

/** The OpenTelemetry SDK's own protobuf serializer: the reference the encoding must equal. */
const reference = (spans: ReadableSpan[]): Buffer => {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (bytes === undefined) throw new Error("the SDK serialized nothing");
  return Buffer.from(bytes);
};

interface Recorder {
  readonly tracer: Tracer;
  readonly ended: () => ReadableSpan[];
}

function platformRecorder(service: string, scope = "commerce-platform"): Recorder {
  const exporter = new InMemorySpanExporter();
  const resource = resourceFromAttributes({ "service.name": service, "service.instance.id": "instance-1" });
  const tracer = new PlatformTracer(
    { resource, instrumentationScope: { name: scope }, processor: new SimpleSpanProcessor(exporter) },
    new AlwaysOnSampler(),
  );
  return { tracer, ended: () => exporter.getFinishedSpans() };
}

function sdkRecorder(service: string): Recorder {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { tracer: provider.getTracer("sdk-scope", "1.2.3"), ended: () => exporter.getFinishedSpans() };
}

const remote: SpanContext = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  traceFlags: TraceFlags.SAMPLED,
  traceState: new TraceState("vendor=value,other=1"),
  isRemote: true,
};
const remoteParent = trace.setSpanContext(ROOT_CONTEXT, remote);

/** Spans that use every field the encoding writes. */
function recordEverything({ tracer }: Recorder): void {
  const root = tracer.startSpan("GET /api/products/{product_id}", {
    kind: SpanKind.SERVER,
    attributes: {
      "http.request.method": "GET",
      "http.response.status_code": 200,
      "a.negative": -42,
      "a.large": 2 ** 40 + 7,
      "a.double": 0.25,
      "a.bool": false,
      "a.strings": ["one", "twö", ""],
      "a.numbers": [1, 2.5, -3],
      "a.nullable": ["x", null, "y"],
    },
  });
  const context = trace.setSpan(ROOT_CONTEXT, root);
  const child = tracer.startSpan(
    "commerce.product.v1.ProductService/GetProduct",
    {
      kind: SpanKind.CLIENT,
      links: [{ context: remote, attributes: { "link.kind": "cause" } }, { context: root.spanContext() }],
    },
    context,
  );
  child.addEvent("retry", { attempt: 2, "why.not": "überlastet" }, [1_790_000_000, 123_456_789]);
  child.addEvent("bare");
  child.setStatus({ code: SpanStatusCode.ERROR, message: "UNAVAILABLE" });
  child.end();
  const remoteChild = tracer.startSpan("consume order-events", { kind: SpanKind.CONSUMER }, remoteParent);
  remoteChild.setStatus({ code: SpanStatusCode.OK });
  remoteChild.end();
  tracer.startSpan("internal work").end();
  root.end();
}

describe("encodeTraceRequest (OTLP ExportTraceServiceRequest in protobuf)", () => {
  it("writes exactly the SDK serializer's bytes for the platform tracer's spans", () => {
    const recorder = platformRecorder("commerce-product");
    recordEverything(recorder);
    const spans = recorder.ended();
    expect(spans).to.have.length(4);
    expect(Buffer.from(encodeTraceRequest(spans))).to.deep.equal(reference(spans));
  });

  it("writes exactly the SDK serializer's bytes for the SDK's own spans", () => {
    const recorder = sdkRecorder("commerce-order");
    recordEverything(recorder);
    const spans = recorder.ended();
    expect(Buffer.from(encodeTraceRequest(spans))).to.deep.equal(reference(spans));
  });

  it("groups spans of several services and scopes as the SDK does", () => {
    const product = platformRecorder("commerce-product");
    const order = platformRecorder("commerce-order");
    const other = platformRecorder("commerce-product", "another-scope");
    product.tracer.startSpan("p1").end();
    order.tracer.startSpan("o1").end();
    other.tracer.startSpan("s1").end();
    product.tracer.startSpan("p2").end();
    const spans = [
      ...product.ended().slice(0, 1),
      ...order.ended(),
      ...other.ended(),
      ...product.ended().slice(1),
    ];
    expect(spans.map((span) => span.name)).to.deep.equal(["p1", "o1", "s1", "p2"]);
    expect(Buffer.from(encodeTraceRequest(spans))).to.deep.equal(reference(spans));
  });

  it("writes lengths of two and three bytes where a string, a span or a batch grows past 127 and 16 383 bytes", () => {
    const recorder = platformRecorder("commerce-product");
    const span = recorder.tracer.startSpan("é".repeat(100)); // 200 bytes: a two-byte length
    for (let i = 0; i < 120; i += 1) span.setAttribute(`attribute.${i}`, `value ${i} `.repeat(20));
    span.end();
    for (let i = 0; i < 300; i += 1) recorder.tracer.startSpan(`span ${i}`).end();
    const spans = recorder.ended();
    const encoded = Buffer.from(encodeTraceRequest(spans));
    expect(encoded.length).to.be.greaterThan(16_384);
    expect(encoded).to.deep.equal(reference(spans));
  });

  it("writes an empty request for no spans", () => {
    expect(Buffer.from(encodeTraceRequest([]))).to.deep.equal(reference([]));
  });
});
