/**
 * Envoy's OpenTelemetry tracer on a real Envoy, exporting to a real Jaeger: a request gets a
 * `commerce-edge` span, the service behind receives a W3C `traceparent` whose parent is that
 * span, a caller's own `traceparent` is continued rather than replaced, and the spans of many
 * requests go out together.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { startEnvoyProcess, hostPortOf, type EnvoyProcess } from "#envoy/envoy-process.js";
import { edgeServiceName, otlpExportOf } from "#envoy/tracing.js";
import { startJaeger, type JaegerInstance } from "#infra/jaeger.js";
import { spansOfTrace, type TracedSpan } from "#infra/jaeger-query.js";
import { waitUntil } from "#infra/processes.js";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.js";

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/**
 * Envoy's tracer sends what it gathered every 5 s (or every 512 spans): the trace is awaited
 * that long and more.
 */
async function edgeSpansOf(jaeger: JaegerInstance, traceId: string): Promise<TracedSpan[]> {
  let spans: TracedSpan[] = [];
  await waitUntil(
    async () => {
      spans = (await spansOfTrace(jaeger.queryUrl, traceId)).filter(
        (span) => span.service === edgeServiceName,
      );
      return spans.length > 0;
    },
    { timeoutMs: 20_000, intervalMs: 250 },
  );
  return spans;
}

describe("Envoy's OpenTelemetry tracer", function () {
  // A cold cache builds Jaeger first (minutes on two cores).
  this.timeout(30 * 60_000);
  let scratch: string;
  let jaeger: JaegerInstance;
  let upstream: RecordingUpstream;
  let envoy: EnvoyProcess;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "envoy-tracing-"));
    jaeger = await startJaeger({ dataDir: join(scratch, "jaeger") });
    upstream = await startRecordingUpstream();
    envoy = await startEnvoyProcess({
      upstreams: new Map([["auth", [hostPortOf(upstream.url)]]]),
      secrets: { jwtSecret: "s".repeat(64), edgeSecret: "the-edge-credential" },
      otlp: otlpExportOf(jaeger.otlpHttpEndpoint),
      dir: join(scratch, "envoy"),
    });
  });

  after(async () => {
    await envoy.stop();
    await upstream.close();
    await jaeger.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  /** Requests this suite sent through Envoy so far, each making one sampled span. */
  let requests = 0;

  async function login(headers: Record<string, string> = {}): Promise<string> {
    upstream.calls.length = 0;
    requests += 1;
    const response = await fetch(`${envoy.baseUrl}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ email: "asha@example.test", password: "correct horse battery" }),
    });
    expect(response.status, await response.text()).to.equal(200);
    expect(upstream.calls).to.have.length(1);
    return upstream.calls[0]?.headers["traceparent"] ?? "";
  }

  it("starts a commerce-edge span per request and sends its traceparent to the service", async function () {
    this.timeout(60_000);
    const traceparent = await login();
    const [, traceId, parentId] = traceparentPattern.exec(traceparent) ?? [];
    expect(traceId, `traceparent "${traceparent}"`).to.be.a("string");

    const spans = await edgeSpansOf(jaeger, traceId ?? "");
    expect(spans, "the edge's spans of the trace").to.have.length(1);
    expect(spans[0]?.spanId).to.equal(parentId);
    expect(spans[0]?.parentId).to.equal(undefined);
    expect(spans[0]?.links).to.deep.equal([]);
  });

  it("continues a caller's traceparent instead of starting a trace", async function () {
    this.timeout(60_000);
    const callerTraceId = "0af7651916cd43dd8448eb211c80319c";
    const callerSpanId = "b7ad6b7169203331";
    const traceparent = await login({ traceparent: `00-${callerTraceId}-${callerSpanId}-01` });
    const [, traceId, parentId] = traceparentPattern.exec(traceparent) ?? [];
    expect(traceId).to.equal(callerTraceId);
    expect(parentId).not.to.equal(callerSpanId);

    const spans = await edgeSpansOf(jaeger, callerTraceId);
    expect(spans).to.have.length(1);
    expect(spans[0]?.spanId).to.equal(parentId);
    expect(spans[0]?.parentId).to.equal(callerSpanId);
    expect(spans[0]?.links).to.deep.equal([]);
  });

  it("gathers the spans of many requests into one export instead of one every five spans", async function () {
    this.timeout(60_000);
    const stats = async (): Promise<Map<string, number>> => {
      const text = await (await fetch(`${envoy.adminUrl}/stats?filter=opentelemetry`)).text();
      return new Map(
        text
          .trim()
          .split("\n")
          .map((row) => row.split(": "))
          .map(([name, value]) => [name ?? "", Number(value)]),
      );
    };
    const exports = "cluster.opentelemetry_collector.upstream_rq_total";
    const sent = "tracing.opentelemetry.spans_sent";
    // What the tests before left gathered goes out first (at most 5 s later).
    await waitUntil(async () => (await stats()).get(sent) === requests, {
      timeoutMs: 20_000,
      intervalMs: 250,
    });
    const before = await stats();
    for (let request = 0; request < 12; request++) await login();
    await waitUntil(async () => (await stats()).get(sent) === (before.get(sent) ?? 0) + 12, {
      timeoutMs: 20_000,
      intervalMs: 250,
    });
    const after = await stats();
    expect((after.get(exports) ?? 0) - (before.get(exports) ?? 0), "exports of the 12 spans").to.equal(1);
  });
});
