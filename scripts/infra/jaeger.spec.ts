/**
 * Jaeger v2, built from Go modules and started by our code, takes OTLP/HTTP as the services send
 * it and gives it back: a span through the query API, a metric as Prometheus text. And it cannot
 * outlive the process that started it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { isAlive, waitUntil } from "./processes.js";
import { jaegerAnswers, startJaeger, type JaegerInstance } from "./jaeger.js";

const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
const resource = { attributes: [{ key: "service.name", value: { stringValue: "commerce-probe" } }] };

/** POSTs an OTLP/HTTP body in its JSON encoding, which the receiver accepts beside protobuf. */
async function sendOtlp(endpoint: string, signal: "traces" | "metrics", body: unknown): Promise<void> {
  const response = await fetch(`${endpoint}/v1/${signal}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.text()).to.equal(200);
}

interface JaegerTrace {
  readonly traceID: string;
  readonly spans: readonly {
    readonly spanID: string;
    readonly operationName: string;
    readonly processID: string;
  }[];
  readonly processes: Readonly<Record<string, { readonly serviceName: string }>>;
}

describe("Jaeger v2, the OTLP backend", function () {
  // A cold cache downloads Jaeger's modules and compiles it first (minutes on two cores).
  this.timeout(30 * 60_000);
  let scratch: string;
  let jaeger: JaegerInstance;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "jaeger-spec-"));
    jaeger = await startJaeger({ dataDir: join(scratch, "jaeger") });
  });

  after(async () => {
    await jaeger.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("stores a span received over OTLP/HTTP and returns it from the query API", async function () {
    this.timeout(20_000);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const now = Date.now();
    await sendOtlp(jaeger.otlpHttpEndpoint, "traces", {
      resourceSpans: [
        {
          resource,
          scopeSpans: [
            {
              scope: { name: "jaeger-spec" },
              spans: [
                {
                  traceId,
                  spanId: "00f067aa0ba902b7",
                  name: "commerce.probe.v1.ProbeService/Ping",
                  kind: 2,
                  startTimeUnixNano: nanos(now - 5),
                  endTimeUnixNano: nanos(now),
                },
              ],
            },
          ],
        },
      ],
    });

    let traces: readonly JaegerTrace[] = [];
    // The batch processor stores spans within its 200 ms timeout.
    const found = await waitUntil(
      async () => {
        const response = await fetch(`${jaeger.queryUrl}/api/traces?service=commerce-probe`);
        traces = ((await response.json()) as { data: readonly JaegerTrace[] | null }).data ?? [];
        return traces.length > 0;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(found, "a trace of commerce-probe").to.equal(true);
    expect(traces).to.have.length(1);
    const [trace] = traces;
    expect(trace?.traceID).to.equal(traceId);
    expect(trace?.spans.map((span) => [span.spanID, span.operationName])).to.deep.equal([
      ["00f067aa0ba902b7", "commerce.probe.v1.ProbeService/Ping"],
    ]);
    expect(trace?.processes[trace.spans[0]?.processID ?? ""]?.serviceName).to.equal("commerce-probe");
  });

  it("serves a metric received over OTLP/HTTP as Prometheus text", async function () {
    this.timeout(20_000);
    const now = Date.now();
    await sendOtlp(jaeger.otlpHttpEndpoint, "metrics", {
      resourceMetrics: [
        {
          resource,
          scopeMetrics: [
            {
              scope: { name: "jaeger-spec" },
              metrics: [
                {
                  name: "probe.pings",
                  unit: "1",
                  sum: {
                    aggregationTemporality: 2,
                    isMonotonic: true,
                    dataPoints: [
                      { asInt: "3", startTimeUnixNano: nanos(now - 1_000), timeUnixNano: nanos(now) },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });

    const response = await fetch(jaeger.metricsUrl);
    expect(response.status).to.equal(200);
    const samples = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("probe_pings_total{"));
    expect(samples).to.have.length(1);
    expect(samples[0]).to.match(/\bjob="commerce-probe"/);
    expect(samples[0]).to.match(/ 3$/);
  });

  it("stops when the process that started it exits, even by SIGKILL", async function () {
    this.timeout(60_000);
    const starter = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "--eval",
        `import { startJaeger } from ${JSON.stringify(join(import.meta.dirname, "jaeger.ts"))};
         const jaeger = await startJaeger({ dataDir: ${JSON.stringify(join(scratch, "orphan"))} });
         process.stdout.write(JSON.stringify(jaeger) + "\\n");
         setInterval(() => undefined, 1_000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const started = await new Promise<{ pid: number; healthUrl: string; queryUrl: string }>(
      (resolve, reject) => {
        let output = "";
        starter.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk;
          if (output.includes("\n"))
            resolve(JSON.parse(output) as { pid: number; healthUrl: string; queryUrl: string });
        });
        starter.once("exit", (code) => {
          reject(new Error(`the starter exited (${code}) before Jaeger was up`));
        });
      },
    );
    const endpoints = { ...jaeger, healthUrl: started.healthUrl, queryUrl: started.queryUrl };
    expect(await jaegerAnswers(endpoints)).to.equal(true);

    starter.kill("SIGKILL");
    const gone = await waitUntil(() => Promise.resolve(!isAlive(started.pid)), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    expect(gone, "the launcher exited").to.equal(true);
    expect(await jaegerAnswers(endpoints)).to.equal(false);
  });
});
