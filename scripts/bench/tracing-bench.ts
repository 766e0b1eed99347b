/**
 * What tracing costs (`npm run bench`, part 9; BENCH_ONLY=tracing): GET /api/products/{id} and
 * orders placed per second through the edge, in embedded mode (one process making every
 * module's spans: where tracing costs the most per request), with tracing off, with 10 % of
 * traces sampled and with all of them, exporting to a real Jaeger on loopback; then 10 % with the
 * metrics exported too. Figures only, never asserted.
 *
 * Each setting runs on a fresh platform process with the same seeded data, twice, in the order
 * off, 10 %, 100 % and back, so that a drift of the shared machine over the run weighs on every
 * setting alike; the figures are the means of the two rounds. Beside throughput, the platform's
 * CPU time per request (steadier than throughput on two shared cores) and Jaeger's, which runs
 * on the same cores here and would not in a deployment.
 */
import { join } from "node:path";
import { startJaeger } from "../infra/jaeger.js";
import { jsonOk } from "../testing/loopback-json.js";
import { startPlatformProcess } from "../testing/platform-process.js";
import { measure, treeCpuMicros, type LoadResult } from "./load.js";
import { measureOrders } from "./order-bench.js";
import { untilQuiet } from "./quiescence.js";
import { registerBuyers, seedProducts } from "./seeding.js";

export interface TracingBenchOptions {
  readonly scratch: string;
  readonly connections: number;
  readonly seconds: number;
  readonly admin: { readonly email: string; readonly password: string };
  /** The platform's settings for a run named `name` (its own data directory). */
  readonly platformEnv: (name: string) => NodeJS.ProcessEnv;
}

interface Setting {
  readonly label: string;
  /** The `OTEL_*` variables, given the backend's OTLP endpoint. */
  readonly env: (endpoint: string) => NodeJS.ProcessEnv;
}

const sampled = (ratio: string, metrics: boolean) => (endpoint: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
  OTEL_TRACES_SAMPLER_ARG: ratio,
  ...(metrics ? {} : { OTEL_METRICS_EXPORTER: "none" }),
});

const settings: readonly Setting[] = [
  { label: "tracing off", env: () => ({}) },
  { label: "tracing at 10 %", env: sampled("0.1", false) },
  { label: "tracing at 100 %", env: sampled("1", false) },
  { label: "tracing at 10 %, metrics on", env: sampled("0.1", true) },
];

interface Figures {
  readonly byId: LoadResult;
  readonly orders: LoadResult;
  /** Jaeger's CPU per request of the two loads together. */
  readonly backendMicrosPerRequest: number;
}

/** Products seeded per platform: orders spread over them, reads on the first. */
const products = 200;

async function measureSetting(
  options: TracingBenchOptions,
  setting: Setting,
  endpoint: string,
  jaegerPid: number,
  run: string,
): Promise<Figures> {
  const platform = await startPlatformProcess({ ...options.platformEnv(run), ...setting.env(endpoint) });
  try {
    const adminToken = (
      (await jsonOk(platform.baseUrl, "POST", "/api/auth/login", undefined, options.admin)) as {
        token: string;
      }
    ).token;
    const productIds = await seedProducts(platform.baseUrl, adminToken, products, 1_000_000);
    const tokens = await registerBuyers(platform.baseUrl, 16);
    await untilQuiet(platform.baseUrl, adminToken);
    const backendBefore = treeCpuMicros(jaegerPid);
    const byId = await measure({
      url: `${platform.baseUrl}/api/products/${productIds[0] ?? ""}`,
      connections: options.connections,
      seconds: options.seconds,
      cpuOfPid: platform.pid,
    });
    const orders = await measureOrders(
      platform.baseUrl,
      { productIds, tokens },
      options.connections,
      options.seconds,
      platform.pid,
    );
    const requests = (byId.requestsPerSecond + orders.requestsPerSecond) * options.seconds;
    return { byId, orders, backendMicrosPerRequest: (treeCpuMicros(jaegerPid) - backendBefore) / requests };
  } finally {
    await platform.stop();
  }
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

function line(label: string, runs: readonly LoadResult[], off: readonly LoadResult[] | undefined): string {
  const rps = mean(runs.map((r) => r.requestsPerSecond));
  const cpu = mean(runs.map((r) => r.cpuMicrosPerRequest ?? Number.NaN));
  const p99 = Math.max(...runs.map((r) => r.p99Ms));
  const faults = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
  const offRps = off === undefined ? undefined : mean(off.map((r) => r.requestsPerSecond));
  const change =
    offRps === undefined ? "" : `   ${(((rps - offRps) / offRps) * 100).toFixed(1).padStart(6)} % vs off`;
  return (
    `  ${label.padEnd(30)} ${Math.round(rps).toLocaleString("en-US").padStart(7)} req/s` +
    ` (${runs.map((r) => Math.round(r.requestsPerSecond)).join(", ")})   p99 ${String(p99).padStart(4)} ms` +
    `   CPU ${cpu.toFixed(0).padStart(5)} µs/req${change}${faults === 0 ? "" : `   (${faults} non-2xx or errors)`}`
  );
}

export async function benchTracing(options: TracingBenchOptions): Promise<string[]> {
  const jaeger = await startJaeger({ dataDir: join(options.scratch, "jaeger-tracing-bench") });
  const results = new Map<Setting, Figures[]>(settings.map((s) => [s, []]));
  try {
    const order = [...settings, ...[...settings].reverse()];
    for (const [index, setting] of order.entries()) {
      const figures = await measureSetting(
        options,
        setting,
        jaeger.otlpHttpEndpoint,
        jaeger.pid,
        `tracing-${index}`,
      );
      results.get(setting)?.push(figures);
    }
  } finally {
    await jaeger.stop();
  }
  const off = results.get(settings[0] as Setting) ?? [];
  const lines = [
    "tracing cost, embedded mode, exporting to Jaeger on loopback (mean of 2 rounds; each round's req/s in brackets):",
    "GET /api/products/{id}",
  ];
  for (const [setting, runs] of results) {
    lines.push(
      line(
        setting.label,
        runs.map((r) => r.byId),
        setting === settings[0] ? undefined : off.map((r) => r.byId),
      ),
    );
  }
  lines.push(`POST /api/orders (${products} products)`);
  for (const [setting, runs] of results) {
    lines.push(
      line(
        setting.label,
        runs.map((r) => r.orders),
        setting === settings[0] ? undefined : off.map((r) => r.orders),
      ),
    );
  }
  lines.push(
    `  Jaeger's CPU per request: ${[...results]
      .map(
        ([setting, runs]) =>
          `${setting.label} ${mean(runs.map((r) => r.backendMicrosPerRequest)).toFixed(0)} µs`,
      )
      .join(", ")}`,
    "  target: at 10 % sampling, throughput within 10 % of tracing off",
  );
  return lines;
}
