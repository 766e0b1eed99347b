import { expect } from "chai";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeTraceRequest } from "./otlp-trace-request.js";
import { OtlpSpanExporter } from "./otlp-span-exporter.js";
import { PlatformTracer } from "./platform-tracer.js";

interface Received {
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A collector on loopback answering each POST with the next of `statuses` (then 200). */
async function collector(statuses: { status: number; retryAfter?: string }[]): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      const next = statuses.shift() ?? { status: 200 };
      res
        .writeHead(next.status, next.retryAfter === undefined ? {} : { "retry-after": next.retryAfter })
        .end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function someSpans(): ReadableSpan[] {
  const ended = new InMemorySpanExporter();
  const tracer = new PlatformTracer(
    {
      resource: resourceFromAttributes({ "service.name": "commerce-product" }),
      instrumentationScope: { name: "commerce-platform" },
      processor: new SimpleSpanProcessor(ended),
    },
    new AlwaysOnSampler(),
  );
  tracer.startSpan("one").end();
  tracer.startSpan("two").end();
  return ended.getFinishedSpans();
}

const exported = (exporter: OtlpSpanExporter, spans: ReadableSpan[]) =>
  new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));

describe("OtlpSpanExporter", () => {
  it("posts the encoded batch as protobuf, with the configured headers", async () => {
    const otlp = await collector([]);
    const exporter = new OtlpSpanExporter({
      url: otlp.url,
      headers: { authorization: "Bearer t0ken" },
      timeoutMs: 5_000,
    });
    try {
      const spans = someSpans();
      const result = await exported(exporter, spans);
      expect(result.code).to.equal(ExportResultCode.SUCCESS);
      expect(otlp.received).to.have.length(1);
      const [request] = otlp.received;
      expect(request?.url).to.equal("/v1/traces");
      expect(request?.headers["content-type"]).to.equal("application/x-protobuf");
      expect(request?.headers["authorization"]).to.equal("Bearer t0ken");
      expect(request?.body).to.deep.equal(Buffer.from(encodeTraceRequest(spans)));
    } finally {
      await exporter.shutdown();
      await otlp.close();
    }
  });

  it("tries again when the collector answers 503 or 429, after the pause it asks for", async () => {
    const otlp = await collector([
      { status: 503, retryAfter: "0" },
      { status: 429, retryAfter: "0" },
    ]);
    const exporter = new OtlpSpanExporter({ url: otlp.url, headers: {}, timeoutMs: 5_000 });
    try {
      const result = await exported(exporter, someSpans());
      expect(result.code).to.equal(ExportResultCode.SUCCESS);
      expect(otlp.received).to.have.length(3);
    } finally {
      await exporter.shutdown();
      await otlp.close();
    }
  });

  it("fails the batch at once on an answer no retry can change", async () => {
    const otlp = await collector([{ status: 400 }]);
    const exporter = new OtlpSpanExporter({ url: otlp.url, headers: {}, timeoutMs: 5_000 });
    try {
      const result = await exported(exporter, someSpans());
      expect(result.code).to.equal(ExportResultCode.FAILED);
      expect(result.error?.message).to.equal("the collector answered the span export with 400");
      expect(otlp.received).to.have.length(1);
    } finally {
      await exporter.shutdown();
      await otlp.close();
    }
  });

  it("gives up when the pauses would pass the export's deadline", async () => {
    const otlp = await collector([{ status: 503, retryAfter: "10" }]);
    const exporter = new OtlpSpanExporter({ url: otlp.url, headers: {}, timeoutMs: 2_000 });
    try {
      const started = Date.now();
      const result = await exported(exporter, someSpans());
      expect(result.code).to.equal(ExportResultCode.FAILED);
      expect(Date.now() - started).to.be.below(1_500);
      expect(otlp.received).to.have.length(1);
    } finally {
      await exporter.shutdown();
      await otlp.close();
    }
  });

  it("refuses to export once shut down", async () => {
    const exporter = new OtlpSpanExporter({
      url: "http://127.0.0.1:9/v1/traces",
      headers: {},
      timeoutMs: 1_000,
    });
    await exporter.shutdown();
    const result = await exported(exporter, someSpans());
    expect(result.code).to.equal(ExportResultCode.FAILED);
  });
});
