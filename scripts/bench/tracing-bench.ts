/**
 * What tracing costs (`npm run bench`, part 9; BENCH_ONLY=tracing): GET /api/products/{id} and
 * orders placed per second through the edge, with tracing off, with 10 % of traces sampled and
 * with all of them, exporting to a real Jaeger on loopback. Twice: in embedded mode (one
 * process making every module's spans, where a request is cheapest and tracing weighs the
 * most), with beside those three tracing on with nothing sampled (the floor every request pays)
 * and 10 % with the metrics exported too; and behind Envoy, one process per service, the shape
 * a deployment runs, with beside them Envoy tracing alone (its part of the 10 % row's cost).
 * Figures only, never asserted.
 *
 * Every setting of a shape is deployed side by side, each fresh with the same seeded data and
 * warmed up, and they are measured in interleaved rounds (interleaved-load.ts): each round loads
 * every setting for BENCH_TRACING_SLICE seconds (default 2), its order rotating from round to
 * round, BENCH_TRACING_ROUNDS rounds (default 16). The speed of this shared two-core machine
 * swings by more than half within seconds; measured one after the other, settings compared the
 * machine's spells more than tracing (ADR 0066). Beside throughput, the CPU
 * time per request of what serves it (the platform's process, or the services' and Envoy's,
 * then process by process, so that Envoy's tracer and each service's part show apart; for
 * orders, until the events they caused are consumed), and Jaeger's, which runs on the same cores
 * here and would not in a deployment.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { startCluster } from "../cluster/cluster.js";
import { startKafka } from "../infra/kafka.js";
import { startJaeger } from "../infra/jaeger.js";
import { jsonOk } from "../testing/loopback-json.js";
import { startPlatformProcess } from "../testing/platform-process.js";
import { prepareBaselineTree } from "./baseline-tree.js";
import { interleaved, type Tally } from "./interleaved-load.js";
import {
  childProcesses,
  loadRun,
  percentile,
  processCpu,
  processesCpu,
  treeCpuMicros,
  warmUpSeconds,
  type CpuClock,
} from "./load.js";
import { orderLoad, type Seeded } from "./order-bench.js";
import { untilQuiet } from "./quiescence.js";
import { registerBuyers, seedProducts } from "./seeding.js";

export interface TracingBenchOptions {
  readonly scratch: string;
  readonly connections: number;
  /** One slice's length in seconds (BENCH_TRACING_SLICE, default 2). */
  readonly seconds: number;
  /** Interleaved rounds, each one slice of `seconds` per setting (BENCH_TRACING_ROUNDS, default 16). */
  readonly rounds: number;
  /** Which shapes to measure: `embedded`, `envoy` (BENCH_TRACING_TOPOLOGIES, default both). */
  readonly topologies: readonly string[];
  readonly admin: { readonly email: string; readonly password: string };
  /** The platform's settings for a run named `name` (its own data directory). */
  readonly platformEnv: (name: string) => NodeJS.ProcessEnv;
  /**
   * A revision measured beside the working tree, every setting of both deployed side by side
   * (BENCH_TRACING_BASELINE; built from an export, baseline-tree.ts); none: the working tree only.
   */
  readonly baseline?: string | undefined;
}

interface Setting {
  readonly label: string;
  /** The `OTEL_*` variables, given the backend's OTLP endpoint. */
  readonly env: (endpoint: string) => NodeJS.ProcessEnv;
  /** Envoy's, when they differ from the services' (`env`). */
  readonly edgeEnv?: (endpoint: string) => NodeJS.ProcessEnv;
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
/**
 * Envoy's tracer alone at 10 %, the services not tracing: what the edge's spans and the
 * `traceparent` it sends on cost, which no setting of the services removes. The rest of the
 * 10 % row's cost is the services' own.
 */
const envoyAlone: Setting = { label: "Envoy only, at 10 %", env: () => ({}), edgeEnv: tenPercent.env };
const everything: Setting = { label: "tracing at 100 %", env: sampled("1", false) };
const settings: readonly Setting[] = [
  tracingOff,
  { label: "tracing on, nothing sampled", env: nothingSampled },
  tenPercent,
  everything,
  { label: "tracing at 10 %, metrics on", env: sampled("0.1", true) },
];

/** Products seeded per platform: orders spread over them, reads on the first. */
const products = 200;

/** What a setting is measured on: the edge's URL, and the CPU time of what serves it. */
interface Deployment {
  readonly baseUrl: string;
  readonly cpuTime: CpuClock;
  /** Each process of a deployment of several (Envoy, each service), with its own clock; none for one. */
  readonly parts: ReadonlyMap<string, CpuClock>;
  stop(): Promise<void>;
}

/** Deploys run `run` with the services' `OTEL_*` variables, and Envoy's when they differ. */
type Deploy = (run: string, telemetry: NodeJS.ProcessEnv, edge?: NodeJS.ProcessEnv) => Promise<Deployment>;

/** A shape the platform is measured in, and the settings measured in it. */
interface Topology {
  /** Its name in BENCH_TRACING_TOPOLOGIES. */
  readonly name: string;
  readonly title: string;
  /** Whose CPU time a deployment's `cpuTime` is. */
  readonly cpuOf: string;
  /** How each revision measured deploys it: the working tree's, and the baseline's before it. */
  readonly revisions: readonly { readonly label: string; readonly deploy: Deploy }[];
  readonly measured: readonly Setting[];
}

/** A revision's code that deploys the platform: its own platform process and cluster. */
interface Starters {
  readonly startPlatformProcess: typeof startPlatformProcess;
  readonly startCluster: typeof startCluster;
}

/** The embedded platform: one process, the local edge. */
function embedded(options: TracingBenchOptions, starters: Starters): Deploy {
  return async (run, telemetry) => {
    const platform = await starters.startPlatformProcess({ ...options.platformEnv(run), ...telemetry });
    return {
      baseUrl: platform.baseUrl,
      cpuTime: processCpu(platform.pid),
      parts: new Map(),
      stop: () => platform.stop(),
    };
  };
}

/**
 * The multi-process topology behind Envoy (its tracer sampling at the services' ratio), with
 * the services these requests reach (Auth, User, Product, Order) and Notification consuming
 * their events, on embedded stores and a fresh private Kafka. Not on FerretDB: three of them
 * side by side, on SQLite, took the two cores (a catalog read cost the services 1.8 ms of CPU,
 * four orders a second), which measured FerretDB rather than tracing.
 */
function cluster(options: TracingBenchOptions, starters: Starters): Deploy {
  return async (run, telemetry, edge) => {
    const kafka = await startKafka({ dataDir: join(options.scratch, `${run}-kafka`), log: () => undefined });
    const secret = (bytes: number) => randomBytes(bytes).toString("base64url");
    const before = new Set(childProcesses());
    try {
      const running = await starters.startCluster({
        stateDir: join(options.scratch, run),
        kafkaBrokers: kafka.brokers,
        jwtSecret: secret(64),
        edgeSecret: secret(32),
        peerSecret: secret(32),
        settings: { ADMIN_EMAIL: options.admin.email, ADMIN_PASSWORD: options.admin.password },
        services: ["auth", "user", "product", "order", "notification"],
        telemetry: defined(telemetry),
        edgeTelemetry: edge === undefined ? undefined : defined(edge),
        logLevel: "warn",
      });
      // The processes this deployment started: its services and Envoy.
      const started = childProcesses().filter((pid) => !before.has(pid));
      return {
        baseUrl: running.baseUrl,
        cpuTime: processesCpu(started),
        parts: byProcessName(started),
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

/** The variables of `env` that are set. */
const defined = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/** The clocks of `pids` by what they run (the replicas of a service on one clock). */
function byProcessName(pids: readonly number[]): ReadonlyMap<string, CpuClock> {
  const named = new Map<string, number[]>();
  for (const pid of pids) {
    const name = processName(pid);
    named.set(name, [...(named.get(name) ?? []), pid]);
  }
  return new Map([...named].map(([name, group]) => [name, processesCpu(group)]));
}

/**
 * A cluster's process by what it runs: `Envoy` (under its launcher), or the service whose entry
 * it started from.
 */
function processName(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  if (args.some((arg) => basename(arg) === "envoy")) return "Envoy";
  for (const arg of args) {
    const service = /\/services\/(\w+)\//.exec(arg)?.[1];
    if (service !== undefined) return service;
  }
  return `process ${pid}`;
}

/** A deployment of one setting, seeded and warmed up: what its loads need. */
interface Prepared {
  readonly deployment: Deployment;
  readonly adminToken: string;
  readonly seeded: Seeded;
}

/**
 * Deploys `setting`, seeds the same data as every other (`products` products, 16 buyers) and
 * warms it up with both loads, so that JIT compilation counts against no slice.
 */
async function prepare(
  options: TracingBenchOptions,
  deploy: Deploy,
  setting: Setting,
  endpoint: string,
  run: string,
): Promise<Prepared> {
  const deployment = await deploy(run, setting.env(endpoint), setting.edgeEnv?.(endpoint));
  try {
    const { token: adminToken } = (await jsonOk(
      deployment.baseUrl,
      "POST",
      "/api/auth/login",
      undefined,
      options.admin,
    )) as { token: string };
    const seeded: Seeded = {
      productIds: await seedProducts(deployment.baseUrl, adminToken, products, 1_000_000),
      tokens: await registerBuyers(deployment.baseUrl, 16),
    };
    await loadRun({
      url: readUrl(deployment, seeded),
      connections: options.connections,
      seconds: warmUpSeconds,
    });
    await orderLoad(deployment.baseUrl, seeded, options.connections, warmUpSeconds);
    await untilQuiet(deployment.baseUrl, adminToken);
    return { deployment, adminToken, seeded };
  } catch (error) {
    await deployment.stop();
    throw error;
  }
}

/** The catalog read measured: the first seeded product. */
const readUrl = (deployment: Deployment, seeded: Seeded): string =>
  `${deployment.baseUrl}/api/products/${seeded.productIds[0] ?? ""}`;

/** How `value` compares with `off`, in percent, signed. */
const change = (value: number, off: number): string => {
  const percent = ((value - off) / off) * 100;
  return `${percent > 0 ? "+" : ""}${percent.toFixed(1)}`;
};

function line(label: string, tally: Tally, off: Tally | undefined): string {
  const rps = `${Math.round(tally.requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s`;
  const cpu = `CPU ${tally.cpuMicrosPerRequest.toFixed(0).padStart(5)} µs/req`;
  const tail =
    `p99 ${String(tally.p99Ms).padStart(4)} ms` +
    (tally.faults === 0 ? "" : `   (${tally.faults} non-2xx or errors)`);
  if (off === undefined)
    return `  ${label.padEnd(30)} ${rps} ${"".padEnd(8)}   ${cpu} ${"".padEnd(8)}   ${tail}`;
  const rounds = tally.rounds
    .map((rps, round) => rps / (off.rounds[round] ?? Number.NaN))
    .sort((a, b) => a - b);
  const quartile = (q: number) => change(percentile(rounds, q), 1);
  return (
    `  ${label.padEnd(30)} ${rps} ${`${change(tally.requestsPerSecond, off.requestsPerSecond)} %`.padStart(8)}` +
    `   ${cpu} ${`${change(tally.cpuMicrosPerRequest, off.cpuMicrosPerRequest)} %`.padStart(8)}   ${tail}` +
    `   (rounds: median ${quartile(50)} %, middle half ${quartile(25)} to ${quartile(75)} %)`
  );
}

/** Where a setting's CPU per request went, process by process, when its deployment has several. */
function partsLine(tally: Tally): string[] {
  if (tally.cpuMicrosByPart.size === 0) return [];
  const parts = [...tally.cpuMicrosByPart]
    .sort(([a], [b]) => (a === "Envoy" ? -1 : b === "Envoy" ? 1 : a.localeCompare(b)))
    .map(([part, micros]) => `${part} ${micros.toFixed(0)}`);
  return [`    CPU by process, µs/req: ${parts.join(", ")}`];
}

/**
 * Every setting of `topology`, for every revision, deployed side by side, then measured in
 * interleaved rounds (interleaved-load.ts): the catalog read, then order placement, each one
 * slice of `options.seconds` per round; the lines to print, each setting against tracing off of
 * its own revision.
 */
async function benchTopology(
  options: TracingBenchOptions,
  { title, cpuOf, revisions, measured }: Topology,
  jaeger: { readonly otlpHttpEndpoint: string; readonly pid: number },
): Promise<string[]> {
  const prepared: Prepared[] = [];
  try {
    for (const [r, revision] of revisions.entries()) {
      for (const [index, setting] of measured.entries()) {
        const run = `tracing-${title.replace(/\W+/g, "-")}-${r}-${index}`;
        prepared.push(await prepare(options, revision.deploy, setting, jaeger.otlpHttpEndpoint, run));
      }
    }
    const { connections, seconds, rounds } = options;
    const backendBefore = treeCpuMicros(jaeger.pid);
    const reads = await interleaved(
      prepared.map(({ deployment, seeded }) => ({
        slice: () => loadRun({ url: readUrl(deployment, seeded), connections, seconds }),
        cpuTime: deployment.cpuTime,
        parts: deployment.parts,
        settle: () => Promise.resolve(),
      })),
      rounds,
      seconds,
    );
    const orders = await interleaved(
      prepared.map(({ deployment, seeded, adminToken }) => ({
        slice: () => orderLoad(deployment.baseUrl, seeded, connections, seconds),
        cpuTime: deployment.cpuTime,
        parts: deployment.parts,
        settle: () => untilQuiet(deployment.baseUrl, adminToken),
      })),
      rounds,
      seconds,
    );
    const requests = [...reads, ...orders].reduce((sum, tally) => sum + tally.requests, 0);
    const backend = (treeCpuMicros(jaeger.pid) - backendBefore) / requests;
    const block = (tallies: readonly Tally[]) =>
      revisions.flatMap((revision, r) => {
        const own = tallies.slice(r * measured.length, (r + 1) * measured.length);
        return [
          ...(revisions.length > 1 ? [`  ${revision.label}:`] : []),
          ...own.flatMap((tally, index) => [
            line((measured[index] as Setting).label, tally, index === 0 ? undefined : own[0]),
            ...partsLine(tally),
          ]),
        ];
      });
    return [
      title,
      `(${rounds} interleaved rounds of ${seconds} s per setting; CPU: ${cpuOf}; each round's change against off's of the same round, in brackets):`,
      "GET /api/products/{id}",
      ...block(reads),
      `POST /api/orders (${products} products; CPU until its events are consumed)`,
      ...block(orders),
      `  Jaeger's CPU over the run: ${backend.toFixed(0)} µs per request, all settings together`,
    ];
  } finally {
    for (const { deployment } of prepared) await deployment.stop();
  }
}

export async function benchTracing(options: TracingBenchOptions): Promise<string[]> {
  const current: Starters = { startPlatformProcess, startCluster };
  const starters: { label: string; starters: Starters }[] = [
    { label: "after (working tree)", starters: current },
  ];
  let baselineLine: string[] = [];
  if (options.baseline !== undefined) {
    const tree = prepareBaselineTree(options.baseline, (line) =>
      process.stderr.write(`tracing bench: ${line}\n`),
    );
    const load = async <T>(path: string): Promise<T> =>
      (await import(pathToFileURL(join(tree.root, path)).href)) as T;
    starters.unshift({
      label: `before (${options.baseline})`,
      starters: {
        ...(await load<Pick<Starters, "startPlatformProcess">>("scripts/testing/platform-process.ts")),
        ...(await load<Pick<Starters, "startCluster">>("scripts/cluster/cluster.ts")),
      },
    });
    baselineLine = [
      `before: ${options.baseline} (${tree.commit.slice(0, 12)})${tree.ownDependencies ? ", on its own dependencies (its lockfile differs)" : ""}; after: the working tree`,
    ];
  }
  const revisionsOf = (deploy: (o: TracingBenchOptions, s: Starters) => Deploy) =>
    starters.map(({ label, starters: own }) => ({ label, deploy: deploy(options, own) }));
  const jaeger = await startJaeger({ dataDir: join(options.scratch, "jaeger-tracing-bench") });
  try {
    const topologies: readonly Topology[] = [
      {
        name: "embedded",
        title: "tracing cost, embedded mode, exporting to Jaeger on loopback",
        cpuOf: "the platform's process",
        revisions: revisionsOf(embedded),
        measured: settings,
      },
      // The three settings the target names, through Envoy: the shape a deployment runs; and
      // Envoy's tracer alone, to tell its part of the cost from the services'.
      {
        name: "envoy",
        title: "tracing cost, Envoy → one process per service (embedded stores, Kafka), exporting to Jaeger",
        cpuOf: "the services' processes and Envoy",
        revisions: revisionsOf(cluster),
        measured: [tracingOff, envoyAlone, tenPercent, everything],
      },
    ];
    const blocks: string[][] = [];
    for (const topology of topologies.filter((t) => options.topologies.includes(t.name))) {
      blocks.push(await benchTopology(options, topology, jaeger));
    }
    return [
      ...baselineLine,
      ...blocks.flatMap((lines, index) => (index === 0 ? lines : ["", ...lines])),
      "  target: nothing sampled at most +1 µs per request; at 10 % sampling at most +10 % CPU per request (the services' processes; Envoy's tracer apart)",
    ];
  } finally {
    await jaeger.stop();
  }
}
