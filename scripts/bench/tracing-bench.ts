/**
 * What tracing costs (`npm run bench`, part 9; BENCH_ONLY=tracing): GET /api/products/{id} and
 * orders placed per second through the edge, with tracing off, with 10 % of traces sampled and
 * with all of them, exporting to a real Jaeger on loopback. Twice: in embedded mode (one
 * process making every module's spans, where a request is cheapest and tracing weighs the
 * most), with beside those three tracing on with nothing sampled (the floor every request pays)
 * and 10 % with the metrics exported too; and behind Envoy, one process per service, the shape
 * a deployment runs. Figures only, never asserted.
 *
 * Each setting runs on a fresh deployment with the same seeded data, BENCH_TRACING_ROUNDS times
 * (default 2), in the order off, 10 %, 100 %, then back, so that a drift of the shared machine
 * over the run weighs on every setting alike; the figures are the means of the rounds. Beside
 * throughput, the CPU time per request of what serves it (steadier than throughput on two
 * shared cores: the platform's process, or the services' and Envoy's) and Jaeger's, which runs
 * on the same cores here and would not in a deployment.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { startCluster } from "../cluster/cluster.js";
import { startKafka } from "../infra/kafka.js";
import { startJaeger } from "../infra/jaeger.js";
import { jsonOk } from "../testing/loopback-json.js";
import { startPlatformProcess } from "../testing/platform-process.js";
import { childrenCpu, measure, processCpu, treeCpuMicros, type CpuClock, type LoadResult } from "./load.js";
import { measureOrders } from "./order-bench.js";
import { untilQuiet } from "./quiescence.js";
import { registerBuyers, seedProducts } from "./seeding.js";

export interface TracingBenchOptions {
  readonly scratch: string;
  readonly connections: number;
  readonly seconds: number;
  /** How many times each setting is measured (BENCH_TRACING_ROUNDS, default 2). */
  readonly rounds: number;
  /** Which shapes to measure: `embedded`, `envoy` (BENCH_TRACING_TOPOLOGIES, default both). */
  readonly topologies: readonly string[];
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

/**
 * Tracing on with nothing sampled: what every request pays whatever the ratio, the sampling
 * decision made and passed on, and the context bound to each call's signal.
 */
const nothingSampled = (endpoint: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_TRACES_SAMPLER: "parentbased_always_off",
  OTEL_METRICS_EXPORTER: "none",
});

const tracingOff: Setting = { label: "tracing off", env: () => ({}) };
const tenPercent: Setting = { label: "tracing at 10 %", env: sampled("0.1", false) };
const everything: Setting = { label: "tracing at 100 %", env: sampled("1", false) };
const settings: readonly Setting[] = [
  tracingOff,
  { label: "tracing on, nothing sampled", env: nothingSampled },
  tenPercent,
  everything,
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

/** What a setting is measured on: the edge's URL, and the CPU time of what serves it. */
interface Deployment {
  readonly baseUrl: string;
  readonly cpuTime: CpuClock;
  stop(): Promise<void>;
}

type Deploy = (telemetry: NodeJS.ProcessEnv, run: string) => Promise<Deployment>;

/** A shape the platform is measured in, and the settings measured in it. */
interface Topology {
  /** Its name in BENCH_TRACING_TOPOLOGIES. */
  readonly name: string;
  readonly title: string;
  /** Whose CPU time a deployment's `cpuTime` is. */
  readonly cpuOf: string;
  readonly deploy: Deploy;
  readonly measured: readonly Setting[];
}

/** The embedded platform: one process, the local edge. */
function embedded(options: TracingBenchOptions): Deploy {
  return async (telemetry, run) => {
    const platform = await startPlatformProcess({ ...options.platformEnv(run), ...telemetry });
    return { baseUrl: platform.baseUrl, cpuTime: processCpu(platform.pid), stop: () => platform.stop() };
  };
}

/**
 * The multi-process topology behind Envoy (its tracer sampling at the services' ratio), with
 * the services these requests reach (Auth, User, Product, Order) and Notification consuming
 * their events, on embedded stores and a fresh private Kafka.
 */
function cluster(options: TracingBenchOptions, jaegerPid: number): Deploy {
  return async (telemetry, run) => {
    const kafka = await startKafka({ dataDir: join(options.scratch, `${run}-kafka`), log: () => undefined });
    const secret = (bytes: number) => randomBytes(bytes).toString("base64url");
    try {
      const running = await startCluster({
        stateDir: join(options.scratch, run),
        kafkaBrokers: kafka.brokers,
        jwtSecret: secret(64),
        edgeSecret: secret(32),
        peerSecret: secret(32),
        settings: { ADMIN_EMAIL: options.admin.email, ADMIN_PASSWORD: options.admin.password },
        services: ["auth", "user", "product", "order", "notification"],
        telemetry: Object.fromEntries(
          Object.entries(telemetry).filter((entry): entry is [string, string] => entry[1] !== undefined),
        ),
        logLevel: "warn",
      });
      return {
        baseUrl: running.baseUrl,
        // Every process this bench started but Jaeger and Kafka: the services and Envoy.
        cpuTime: childrenCpu([jaegerPid, kafka.pid]),
        stop: async () => {
          await running.stop();
          await kafka.stop();
        },
      };
    } catch (error) {
      await kafka.stop();
      throw error;
    }
  };
}

async function measureSetting(
  options: TracingBenchOptions,
  deploy: Deploy,
  setting: Setting,
  endpoint: string,
  jaegerPid: number,
  run: string,
): Promise<Figures> {
  const platform = await deploy(setting.env(endpoint), run);
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
      cpuTime: platform.cpuTime,
    });
    const orders = await measureOrders(
      platform.baseUrl,
      { productIds, tokens },
      options.connections,
      options.seconds,
      platform.cpuTime,
    );
    const requests = (byId.requestsPerSecond + orders.requestsPerSecond) * options.seconds;
    return { byId, orders, backendMicrosPerRequest: (treeCpuMicros(jaegerPid) - backendBefore) / requests };
  } finally {
    await platform.stop();
  }
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** How `value` compares with `off`, in percent; empty without a reference. */
function versusOff(value: number, off: number | undefined): string {
  if (off === undefined) return "";
  const change = ((value - off) / off) * 100;
  return ` ${`${change > 0 ? "+" : ""}${change.toFixed(1)}`.padStart(6)} %`;
}

function line(label: string, runs: readonly LoadResult[], off: readonly LoadResult[] | undefined): string {
  const rps = mean(runs.map((r) => r.requestsPerSecond));
  const cpu = mean(runs.map((r) => r.cpuMicrosPerRequest ?? Number.NaN));
  const offRps = off === undefined ? undefined : mean(off.map((r) => r.requestsPerSecond));
  const offCpu = off === undefined ? undefined : mean(off.map((r) => r.cpuMicrosPerRequest ?? Number.NaN));
  const p99 = Math.max(...runs.map((r) => r.p99Ms));
  const faults = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
  return (
    `  ${label.padEnd(30)} ${Math.round(rps).toLocaleString("en-US").padStart(7)} req/s${versusOff(rps, offRps)}` +
    ` (${runs.map((r) => Math.round(r.requestsPerSecond)).join(", ")})` +
    `   CPU ${cpu.toFixed(0).padStart(4)} µs/req${versusOff(cpu, offCpu)}   p99 ${String(p99).padStart(4)} ms` +
    (faults === 0 ? "" : `   (${faults} non-2xx or errors)`)
  );
}

/**
 * Each setting `options.rounds` times, in the order given, back, and so on, on fresh
 * deployments; the lines to print.
 */
async function benchTopology(
  options: TracingBenchOptions,
  { title, cpuOf, deploy, measured }: Topology,
  jaeger: { readonly otlpHttpEndpoint: string; readonly pid: number },
): Promise<string[]> {
  const results = new Map<Setting, Figures[]>(measured.map((s) => [s, []]));
  const order = Array.from({ length: options.rounds }, (_, round) =>
    round % 2 === 0 ? measured : [...measured].reverse(),
  ).flat();
  for (const [index, setting] of order.entries()) {
    const run = `tracing-${title.replace(/\W+/g, "-")}-${index}`;
    results
      .get(setting)
      ?.push(await measureSetting(options, deploy, setting, jaeger.otlpHttpEndpoint, jaeger.pid, run));
  }
  const off = results.get(measured[0] as Setting) ?? [];
  const lines = [
    `${title} (mean of ${options.rounds} rounds, each round's req/s in brackets; CPU: ${cpuOf}):`,
    "GET /api/products/{id}",
  ];
  const block = (pick: (figures: Figures) => LoadResult) => {
    for (const [setting, runs] of results) {
      lines.push(line(setting.label, runs.map(pick), setting === measured[0] ? undefined : off.map(pick)));
    }
  };
  block((figures) => figures.byId);
  lines.push(`POST /api/orders (${products} products)`);
  block((figures) => figures.orders);
  lines.push(
    `  Jaeger's CPU per request: ${[...results]
      .map(
        ([setting, runs]) =>
          `${setting.label} ${mean(runs.map((r) => r.backendMicrosPerRequest)).toFixed(0)} µs`,
      )
      .join(", ")}`,
  );
  return lines;
}

export async function benchTracing(options: TracingBenchOptions): Promise<string[]> {
  const jaeger = await startJaeger({ dataDir: join(options.scratch, "jaeger-tracing-bench") });
  try {
    const topologies: readonly Topology[] = [
      {
        name: "embedded",
        title: "tracing cost, embedded mode, exporting to Jaeger on loopback",
        cpuOf: "the platform's process",
        deploy: embedded(options),
        measured: settings,
      },
      // The three settings the target names, through Envoy: the shape a deployment runs.
      {
        name: "envoy",
        title: "tracing cost, Envoy → one process per service (embedded stores, Kafka), exporting to Jaeger",
        cpuOf: "the services' processes and Envoy",
        deploy: cluster(options, jaeger.pid),
        measured: [tracingOff, tenPercent, everything],
      },
    ];
    const blocks: string[][] = [];
    for (const topology of topologies.filter((t) => options.topologies.includes(t.name))) {
      blocks.push(await benchTopology(options, topology, jaeger));
    }
    return [
      ...blocks.flatMap((lines, index) => (index === 0 ? lines : ["", ...lines])),
      "  target: at 10 % sampling, throughput within 10 % of tracing off",
    ];
  } finally {
    await jaeger.stop();
  }
}
