import { Code, createClient, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import { EnvReader } from "../config/env-reader.js";
import { capturedLogger } from "../testing/captured-logger.js";
import { codeOf } from "../testing/service-harness.js";
import { tracedProductHost } from "../testing/traced-product-host.js";
import { setSignalDeadline } from "../transport/deadline-sweeper.js";
import { ProductService } from "../../gen/commerce/product/v1/product_pb.js";
import { withClientSpans } from "./rpc-client-spans.js";
import { serverTelemetryByService } from "./rpc-server-spans.js";
import { noTelemetry, startTelemetry, type Telemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";
import { bindTraceContext, contextFromFields, traceContextOf } from "./trace-context.js";

/** Tracing on, as `OTEL_TRACES_EXPORTER=otlp` turns it on, into an in-memory exporter. */
function tracingInto(exporter: InMemorySpanExporter): Telemetry {
  const settings = readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" }));
  return startTelemetry(settings, { singleService: false, spanProcessor: new SimpleSpanProcessor(exporter) });
}

function only(spans: readonly ReadableSpan[], kind: SpanKind): ReadableSpan {
  const found = spans.filter((span) => span.kind === kind);
  expect(found, `one span of kind ${kind}`).to.have.length(1);
  return found[0] as ReadableSpan;
}

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const parentId = "00f067aa0ba902b7";

describe("RPC spans", () => {
  const exporter = new InMemorySpanExporter();
  const telemetry = tracingInto(exporter);
  const caller = telemetry.forService("caller");
  const { logger, lines } = capturedLogger();
  const host = tracedProductHost(telemetry, logger);
  let network: Transport;

  before(async () => {
    const port = await host.listen(0, "127.0.0.1");
    network = createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` });
  });
  after(() => host.close(100));
  beforeEach(() => {
    exporter.reset();
    lines.length = 0;
  });

  it("makes a CLIENT span and the peer's SERVER span its child, in process, with the handler's logs", async () => {
    const client = createClient(ProductService, withClientSpans(host.transport, caller, "connect_rpc"));
    expect((await client.getProduct({ productId: "p1" })).name).to.equal("Lamp");
    const spans = exporter.getFinishedSpans();
    expect(spans).to.have.length(2);
    const clientSpan = only(spans, SpanKind.CLIENT);
    const serverSpan = only(spans, SpanKind.SERVER);
    for (const span of [clientSpan, serverSpan]) {
      expect(span.name).to.equal("commerce.product.v1.ProductService/GetProduct");
      expect(span.attributes).to.deep.equal({
        "rpc.system": "connect_rpc",
        "rpc.service": "commerce.product.v1.ProductService",
        "rpc.method": "GetProduct",
      });
      expect(span.status.code).to.equal(SpanStatusCode.UNSET);
    }
    expect(clientSpan.resource.attributes["service.name"]).to.equal("commerce-caller");
    expect(serverSpan.resource.attributes["service.name"]).to.equal("commerce-product");
    expect(serverSpan.resource.attributes["service.version"]).to.equal("0.1.0");
    expect(serverSpan.resource.attributes["service.instance.id"]).to.be.a("string").with.length(36);
    expect(serverSpan.spanContext().traceId).to.equal(clientSpan.spanContext().traceId);
    expect(serverSpan.parentSpanContext?.spanId).to.equal(clientSpan.spanContext().spanId);
    expect(clientSpan.parentSpanContext).to.equal(undefined);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({
      msg: "get product",
      trace_id: serverSpan.spanContext().traceId,
      span_id: serverSpan.spanContext().spanId,
    });
    expect(lines[0]).to.not.have.property("signal");
  });

  it("leaves a caller's span bound to its signal when a peer in process runs under that same signal", async () => {
    // A handler calling a peer in process hands its own request's signal on as is when its owner
    // answers at a deadline (the edge's call signals: transport/deadline-sweeper.ts).
    const request = caller.tracer.startSpan("commerce.order.v1.OrderService/PlaceOrder", {
      kind: SpanKind.SERVER,
    });
    const { signal } = new AbortController();
    setSignalDeadline(signal, Date.now() + 30_000);
    bindTraceContext(signal, trace.setSpan(ROOT_CONTEXT, request));
    const client = createClient(ProductService, withClientSpans(host.transport, caller, "connect_rpc"));
    await client.getProduct({ productId: "p1" }, { signal });
    await client.getProduct({ productId: "p2" }, { signal });
    request.end();
    expect(trace.getSpan(traceContextOf(signal))).to.equal(request);
    const spans = exporter.getFinishedSpans();
    const clients = spans.filter((span) => span.kind === SpanKind.CLIENT);
    const servers = spans.filter((span) => span.kind === SpanKind.SERVER && span !== (request as never));
    expect(clients.map((span) => span.parentSpanContext?.spanId)).to.deep.equal([
      request.spanContext().spanId,
      request.spanContext().spanId,
    ]);
    expect(
      servers
        .filter((span) => span.name.startsWith("commerce.product"))
        .map((span) => span.parentSpanContext?.spanId),
    ).to.deep.equal(clients.map((span) => span.spanContext().spanId));
    expect(lines.map((line) => line["span_id"])).to.deep.equal(
      servers
        .filter((span) => span.name.startsWith("commerce.product"))
        .map((span) => span.spanContext().spanId),
    );
  });

  it("serves an in-process caller whose trace was sampled out under its signal as is, without a span or a header", async () => {
    // The local edge does so for a request its sampler left out: the context is on the signal,
    // and no traceparent header is read (none is sent here).
    const unsampled = contextFromFields({ traceparent: `00-${traceId}-${parentId}-00` });
    const { signal } = new AbortController();
    setSignalDeadline(signal, Date.now() + 30_000);
    bindTraceContext(signal, unsampled);
    const client = createClient(ProductService, host.transport);
    expect((await client.getProduct({ productId: "p1" }, { signal })).name).to.equal("Lamp");
    expect(exporter.getFinishedSpans()).to.deep.equal([]);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ msg: "get product", trace_id: traceId, span_id: parentId });
    expect(traceContextOf(signal), "still the caller's").to.equal(unsampled);
  });

  it("propagates over gRPC and records the status code; a client's mistake is no server error", async () => {
    const client = createClient(ProductService, withClientSpans(network, caller, "grpc"));
    await client.getProduct({ productId: "p1" });
    expect(await codeOf(client.getProduct({ productId: "missing" }))).to.equal(Code.NotFound);
    const spans = exporter.getFinishedSpans();
    expect(spans).to.have.length(4);
    const [okServer, okClient, notFoundServer, notFoundClient] = spans;
    expect(okServer?.attributes).to.include({ "rpc.system": "grpc", "rpc.grpc.status_code": 0 });
    expect(okClient?.attributes).to.include({ "rpc.system": "grpc", "rpc.grpc.status_code": 0 });
    expect(okServer?.parentSpanContext?.spanId).to.equal(okClient?.spanContext().spanId);
    expect(notFoundServer?.kind).to.equal(SpanKind.SERVER);
    expect(notFoundServer?.attributes["rpc.grpc.status_code"]).to.equal(Code.NotFound);
    expect(notFoundServer?.status.code).to.equal(SpanStatusCode.UNSET);
    expect(notFoundClient?.attributes["rpc.grpc.status_code"]).to.equal(Code.NotFound);
    expect(notFoundClient?.status).to.deep.equal({ code: SpanStatusCode.ERROR, message: "not_found" });
  });

  it("sets status ERROR on a server fault, naming only the code", async () => {
    const client = createClient(ProductService, withClientSpans(host.transport, caller, "connect_rpc"));
    expect(await codeOf(client.getProduct({ productId: "boom" }))).to.equal(Code.Internal);
    const serverSpan = only(exporter.getFinishedSpans(), SpanKind.SERVER);
    expect(serverSpan.status).to.deep.equal({ code: SpanStatusCode.ERROR, message: "internal" });
    expect(serverSpan.attributes["rpc.connect_rpc.error_code"]).to.equal("internal");
    expect(JSON.stringify(serverSpan.events)).to.not.contain("the store broke");
  });

  it("continues the trace a request's traceparent names, and keeps its tracestate", async () => {
    const client = createClient(ProductService, host.transport);
    await client.getProduct(
      { productId: "p1" },
      { headers: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: "vendor=abc" } },
    );
    const serverSpan = only(exporter.getFinishedSpans(), SpanKind.SERVER);
    expect(serverSpan.spanContext().traceId).to.equal(traceId);
    expect(serverSpan.parentSpanContext?.spanId).to.equal(parentId);
    expect(serverSpan.parentSpanContext?.isRemote).to.equal(true);
    expect(serverSpan.spanContext().traceState?.serialize()).to.equal("vendor=abc");
  });

  it("registers no global tracer provider: only the services' own tracers record", () => {
    expect(trace.getTracer("anyone").startSpan("global").isRecording()).to.equal(false);
    expect(caller.tracer.startSpan("own").isRecording()).to.equal(true);
  });
});

describe("telemetry off", () => {
  it("starts nothing: a no-op tracer, no interceptor, no client wrapper, no ids in logs", async () => {
    const off = startTelemetry(readTelemetrySettings(new EnvReader({})), { singleService: true });
    expect(off).to.equal(noTelemetry);
    const service = off.forService("product");
    expect(service.enabled).to.equal(false);
    const span = service.tracer.startSpan("nothing");
    expect(span.isRecording()).to.equal(false);
    expect(trace.isSpanContextValid(span.spanContext())).to.equal(false);
    expect(serverTelemetryByService([{ name: "product", services: [ProductService] }], off)).to.equal(
      undefined,
    );
    const { logger, lines } = capturedLogger();
    const host = tracedProductHost(off, logger);
    expect(withClientSpans(host.transport, service, "grpc")).to.equal(host.transport);
    let sent: Headers | undefined;
    const spy: Transport = {
      unary: (...args) => {
        sent = new Headers(args[3] as ConstructorParameters<typeof Headers>[0]);
        return host.transport.unary(...args);
      },
      stream: (...args) => host.transport.stream(...args),
    };
    await createClient(ProductService, withClientSpans(spy, service, "grpc")).getProduct({ productId: "p1" });
    expect(sent?.has("traceparent")).to.equal(false);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.not.have.any.keys("trace_id", "span_id");
    await off.shutdown();
  });
});
