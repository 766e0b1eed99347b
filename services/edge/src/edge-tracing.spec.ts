import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import { ProductSchema, ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { EnvReader } from "@commerce/runtime/config";
import { createLogger } from "@commerce/runtime/logging";
import { createDualProtocolServer, type DualProtocolServer } from "@commerce/runtime/server";
import {
  startTelemetry,
  type Telemetry,
  readTelemetrySettings,
  boundTraceContext,
} from "@commerce/runtime/telemetry";
import { eventually } from "@commerce/runtime/testing";
import { createEdge } from "./edge.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const clientSpanId = "00f067aa0ba902b7";

/** One upstream call as the edge made it. */
interface UpstreamCall {
  readonly signal: AbortSignal;
  /** The trace context bound to the call's signal while it ran. */
  readonly bound: Context | undefined;
  readonly header: Headers;
}

/** A Product service that keeps each call; GetProduct "boom" fails as a server fault would. */
function productUpstream(calls: UpstreamCall[]): Transport {
  return {
    unary(method, signal, _timeout, header, input) {
      calls.push({
        signal: signal as AbortSignal,
        bound: boundTraceContext(signal as AbortSignal),
        header: new Headers(header as ConstructorParameters<typeof Headers>[0]),
      });
      if ((input as { productId: string }).productId === "boom") {
        return Promise.reject(new ConnectError("the store broke", Code.Internal));
      }
      return Promise.resolve({
        stream: false,
        service: method.parent,
        method,
        header: new Headers(),
        trailer: new Headers(),
        message: create(ProductSchema, { id: "p1", name: "Lamp" }),
      } as UnaryResponse as never);
    },
    stream: () => Promise.reject(new Error("no streams")),
  };
}

/** The edge traced by `telemetry` over `productUpstream(calls)`, not listening yet. */
function edgeServer(telemetry: Telemetry, calls: UpstreamCall[]): DualProtocolServer {
  const edge = createEdge({
    services: [ProductService],
    transportFor: () => productUpstream(calls),
    verifyToken: () => Promise.resolve(undefined),
    edgeCredentialFor: () => "edge-credential",
    maxBodyBytes: 1 << 20,
    logger: createLogger("silent", "test"),
    isReady: () => true,
    telemetry: telemetry.forService("edge"),
  });
  return createDualProtocolServer(edge.handler);
}

describe("the edge's request spans", () => {
  const exporter = new InMemorySpanExporter();
  const telemetry = startTelemetry(readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" })), {
    singleService: false,
    spanProcessor: new SimpleSpanProcessor(exporter),
  });
  const calls: UpstreamCall[] = [];
  /** The headers of each upstream call. */
  const sent = (): Headers[] => calls.map((call) => call.header);
  let server: DualProtocolServer;
  let baseUrl: string;

  before(async () => {
    server = edgeServer(telemetry, calls);
    baseUrl = `http://127.0.0.1:${await server.listen(0, "127.0.0.1")}`;
  });
  after(() => server.close());
  beforeEach(() => {
    exporter.reset();
    calls.length = 0;
  });

  const edgeSpan = (): Promise<ReadableSpan> =>
    eventually(() => exporter.getFinishedSpans()[0], 2_000, "the edge's span");

  it("continues the client's trace and hands the service its own span as the parent", async () => {
    const response = await fetch(`${baseUrl}/api/products/p1`, {
      headers: { traceparent: `00-${traceId}-${clientSpanId}-01`, tracestate: "vendor=abc" },
    });
    expect(response.status).to.equal(200);
    const span = await edgeSpan();
    expect(span.name).to.equal("GET /api/products/{product_id}");
    expect(span.kind).to.equal(SpanKind.SERVER);
    expect(span.resource.attributes["service.name"]).to.equal("commerce-edge");
    expect(span.spanContext().traceId).to.equal(traceId);
    expect(span.parentSpanContext?.spanId).to.equal(clientSpanId);
    expect(span.attributes).to.deep.equal({
      "http.request.method": "GET",
      "url.scheme": "http",
      "http.route": "/api/products/{product_id}",
      "http.response.status_code": 200,
    });
    expect(span.status.code).to.equal(SpanStatusCode.UNSET);
    expect(sent()).to.have.length(1);
    expect(sent()[0]?.get("traceparent")).to.equal(`00-${traceId}-${span.spanContext().spanId}-01`);
    expect(sent()[0]?.get("tracestate")).to.equal("vendor=abc");
  });

  it("starts a trace when the client sends none, and marks a 5xx answer as an error", async () => {
    const response = await fetch(`${baseUrl}/api/products/boom`);
    expect(response.status).to.equal(500);
    const span = await edgeSpan();
    expect(span.parentSpanContext).to.equal(undefined);
    expect(span.attributes["http.response.status_code"]).to.equal(500);
    expect(span.status.code).to.equal(SpanStatusCode.ERROR);
    expect(sent()[0]?.get("traceparent")).to.equal(
      `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
    );
  });

  it("names a request without a route by its method alone, and leaves the probes untraced", async () => {
    expect((await fetch(`${baseUrl}/healthz`)).status).to.equal(200);
    expect((await fetch(`${baseUrl}/nowhere`)).status).to.equal(404);
    const span = await eventually(
      () => exporter.getFinishedSpans().find((s) => s.attributes["http.response.status_code"] === 404),
      2_000,
      "the 404's span",
    );
    expect(exporter.getFinishedSpans()).to.have.length(1);
    expect(span.name).to.equal("GET");
    expect(span.attributes).to.deep.equal({
      "http.request.method": "GET",
      "url.scheme": "http",
      "http.response.status_code": 404,
    });
  });

  describe("a request its sampler leaves out", () => {
    const unsampledTelemetry = startTelemetry(
      readTelemetrySettings(
        new EnvReader({ OTEL_TRACES_EXPORTER: "otlp", OTEL_TRACES_SAMPLER: "parentbased_always_off" }),
      ),
      { singleService: false, spanProcessor: new SimpleSpanProcessor(exporter) },
    );
    const unsampledCalls: UpstreamCall[] = [];
    let unsampledServer: DualProtocolServer;
    let unsampledUrl: string;

    before(async () => {
      unsampledServer = edgeServer(unsampledTelemetry, unsampledCalls);
      unsampledUrl = `http://127.0.0.1:${await unsampledServer.listen(0, "127.0.0.1")}`;
    });
    after(() => unsampledServer.close());

    it("makes no span, and hands its context to the service on the call's signal, for that call only", async () => {
      const response = await fetch(`${unsampledUrl}/api/products/p1`, {
        headers: { traceparent: `00-${traceId}-${clientSpanId}-00` },
      });
      expect(response.status).to.equal(200);
      expect(unsampledCalls).to.have.length(1);
      const [call] = unsampledCalls;
      expect(trace.getSpanContext(call?.bound ?? ROOT_CONTEXT)).to.deep.include({
        traceId,
        traceFlags: 0,
      });
      // The edge's own unsampled span id, also in the header for a service across the network.
      const edgeSpanId = trace.getSpanContext(call?.bound ?? ROOT_CONTEXT)?.spanId;
      expect(edgeSpanId)
        .to.match(/^[0-9a-f]{16}$/)
        .and.not.equal(clientSpanId);
      expect(call?.header.get("traceparent")).to.equal(`00-${traceId}-${edgeSpanId ?? ""}-00`);
      expect(call === undefined ? "no call" : boundTraceContext(call.signal)).to.equal(undefined);
      await unsampledTelemetry.shutdown();
      expect(exporter.getFinishedSpans()).to.deep.equal([]);
    });
  });
});
