/**
 * `npm run bench`: measured figures, printed, never asserted (a benchmark is not a test).
 * Each server runs in its own process; the load generator runs here. Loopback only; every run
 * is bounded in time and stops by itself.
 *
 *   1. a bare Node http server answering a fixed JSON body: the ceiling of this machine;
 *   2. through the edge, in embedded mode and again on FerretDB:
 *      GET /api/users/me (JWT, transcoding, User service, store), GET /api/products/{id},
 *      a filtered GET /api/products page, and orders placed per second (many products, and
 *      one hot product);
 *   3. events: change → notification latency in every mode, including FerretDB + Kafka, and
 *      the outbox relay's throughput onto the embedded bus and onto Kafka;
 *   4. the services' own port in embedded mode, loaded directly as Envoy will: GetProduct as
 *      Connect JSON over HTTP/1.1 and as gRPC over h2c (h2load, from Debian's nghttp2-client,
 *      when installed), each beside a bare Node server and the fixed-product upstream of the
 *      same protocol (service-port-bench.ts);
 *   5. GET /api/products/{id} through Envoy to the Product service's own process, through the
 *      same Envoy route to the fixed-product upstream, and through the local edge in embedded
 *      mode, beside the bare server (envoy-bench.ts).
 *   6. a login flood beside catalog reads in embedded mode: 200 connections, a fifth of them
 *      logging in (login-flood-bench.ts);
 *   7. payment callbacks processed per second (distinct payments) and signed callback → order
 *      CONFIRMED latency, in embedded mode and on FerretDB + Kafka (payment-bench.ts).
 *   8. analytics: the stream processor's throughput working off a backlog, into ClickHouse (its
 *      own process, on Kafka) and into chDB (embedded bus); order placed → counted by
 *      GET /api/analytics/orders, embedded and on FerretDB + Kafka + ClickHouse; and each
 *      analytics endpoint's latency over a store seeded with a year of orders, on ClickHouse
 *      and on chDB (analytics-bench.ts).
 *   9. what tracing costs: GET /api/products/{id} and orders placed per second with tracing
 *      off, sampled at 10 % and at 100 %, exporting to a real Jaeger, in embedded mode (with
 *      nothing sampled and 10 % with metrics beside) and behind Envoy (with Envoy's tracer
 *      alone beside; tracing-bench.ts).
 *  10. what carrying a request's trace context costs in CPU: on the call's signal (the runtime's
 *      way) and in OpenTelemetry's AsyncLocalStorage context manager, beside tracing off, over
 *      synthetic requests as deep as a catalog read and an order placed, on the project's Node,
 *      on it without AsyncContextFrame, and on BENCH_REFERENCE_NODE when set
 *      (context-propagation-bench.ts).
 *
 * BENCH_SECONDS and BENCH_CONNECTIONS change the run length and load; BENCH_MODES (a list of
 * embedded, ferretdb, kafka) selects the passes. BENCH_ONLY=service-port, BENCH_ONLY=envoy,
 * BENCH_ONLY=login-flood, BENCH_ONLY=payment, BENCH_ONLY=analytics, BENCH_ONLY=tracing or
 * BENCH_ONLY=context-propagation runs part 4, 5, 6, 7, 8, 9 or 10 alone (about a minute each;
 * part 7, in the embedded and kafka passes of BENCH_MODES, about two and a half; part 8 about
 * seven and a half, two of them seeding a million orders twice; part 9 about fifteen,
 * BENCH_TRACING_ROUNDS interleaved rounds (default 16) of a BENCH_TRACING_SLICE-second slice
 * (default 2) of every setting in BENCH_TRACING_TOPOLOGIES, embedded and envoy by default,
 * for the working tree, and beside it for BENCH_TRACING_BASELINE (a git revision) when set;
 * part 10 one and a half, two with a reference Node, BENCH_CONTEXT_ROUNDS rounds, default 7);
 * BENCH_ENVOY_WORKERS sets Envoy's worker threads for part 5 (default 1).
 * BENCH_ONLY=envoy-cost runs part 11 alone (about two minutes): Envoy's own CPU per catalog read
 * and per order in front of the fixed upstream, the chart's configuration at
 * BENCH_ENVOY_BASELINE (a git revision, default HEAD) beside the working tree's, in
 * BENCH_ENVOY_ROUNDS alternating rounds (default 3; envoy-cost.ts). BENCH_ONLY=start runs part
 * 12 alone (about two minutes): `npm start`'s catalog reads from tsx and from the compiled build,
 * beside a bare Node server, under wrk, BENCH_START_ROUNDS interleaved rounds
 * (default 6) of BENCH_START_SLICE seconds (default 3) over BENCH_START_CONNECTIONS connections
 * (default 64), with CPU profiles of both platforms into BENCH_START_PROFILES when set
 * (start-bench.ts). BENCH_ONLY=idle runs part 13 alone (about 25 minutes, one more the first
 * time a baseline is built; BENCH_IDLE_SECONDS=60 makes it 8): the CPU of every process of the
 * topology on FerretDB, Kafka and ClickHouse at rest, as seeded and with BENCH_IDLE_DOCUMENTS
 * more documents per growing collection (default 5,000), over windows of BENCH_IDLE_SECONDS
 * (default 300), for BENCH_IDLE_BASELINE (a git revision, default ca8dea2, the main the idle targets were measured on) beside the working
 * tree; BENCH_IDLE_PROFILES=<dir> adds CPU profiles (idle-bench.ts).
 * BENCH_ONLY=request-cost runs part 14 alone (about two minutes, more the first time a baseline
 * is built): the CPU per catalog read of Envoy and of the Product process, through Envoy to the
 * compiled service, for BENCH_REQUEST_BASELINE (a git revision, default 1caa5f3, the main the
 * request-cost targets were measured on) beside the working tree, in BENCH_REQUEST_ROUNDS
 * interleaved rounds (default 8) of BENCH_REQUEST_SLICE seconds (default 2);
 * BENCH_REQUEST_PROFILES=<dir> adds CPU profiles of the Product process (request-cost-bench.ts).
 * BENCH_ONLY=order-cost runs part 15 alone (about ten minutes, more the first time a baseline is
 * built): the CPU per order of Envoy, of each service and of the store's processes, through Envoy
 * to the compiled services with Kafka until the order's events are consumed, then the same per
 * catalog read by id and per filtered page over BENCH_ORDER_READ_CONNECTIONS connections
 * (default 32), and the store's commands per order, on each comparison of BENCH_ORDER_STORES
 * (default embedded,ferretdb-sqlite/ferretdb: an entry `<before>/<after>` gives each side its own
 * store, here FerretDB on SQLite before and on PostgreSQL after) and BENCH_ORDER_BROKERS (default
 * kafka-3.9/kafka, the same way), for BENCH_ORDER_BASELINE (a git revision, default 25691db, the
 * main before FerretDB on PostgreSQL, Kafka 4 and the catalog in memory) beside the working
 * tree, in BENCH_ORDER_ROUNDS interleaved rounds (default 6) of BENCH_ORDER_SLICE seconds
 * (default 3) over BENCH_ORDER_CONNECTIONS connections (default 16); BENCH_ORDER_PROFILES=<dir>
 * adds CPU profiles of every service (order-cost-bench.ts, deployment-infrastructure.ts).
 * BENCH_ONLY=recommendation runs part 16 alone (about 30 minutes: the seeds): the Recommendation
 * service's reads over BENCH_RECOMMENDATION_ORDERS orders (default 1,000,000) of
 * BENCH_RECOMMENDATION_PRODUCTS products (default 10,000), from BENCH_RECOMMENDATION_CONNECTIONS
 * callers (default 4) for BENCH_RECOMMENDATION_SECONDS (default 10), and how soon a new order
 * shows, on chDB and ClickHouse (BENCH_RECOMMENDATION_STORES) (recommendation-bench.ts).
 * Part 8's sizes:
 * BENCH_ANALYTICS_BACKLOG events in the throughput backlog (default 200,000),
 * BENCH_ANALYTICS_ORDERS orders in the seeded store (default 1,000,000),
 * BENCH_ANALYTICS_SAMPLES freshness samples per mode (default 100), and
 * BENCH_ANALYTICS_CONNECTIONS connections loading each analytics endpoint (default 4).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChildServer } from "./child-server.js";
import { startFerretDb } from "../infra/ferretdb.js";
import { startPlatformProcess, type PlatformProcess } from "../testing/platform-process.js";
import { startKafka } from "../infra/kafka.js";
import { benchAnalytics } from "./analytics-bench.js";
import { benchCatalog } from "./catalog-bench.js";
import { benchContextPropagation } from "./context-propagation-bench.js";
import { benchEnvoy } from "./envoy-bench.js";
import { benchEnvoyCost } from "./envoy-cost.js";
import { benchEventLatency, benchRelay } from "./event-bench.js";
import { benchIdle } from "./idle-bench.js";
import { formatResult, measure, processCpu, type LoadResult } from "./load.js";
import { untilQuiet } from "./quiescence.js";
import { benchLoginFlood } from "./login-flood-bench.js";
import { benchOrders } from "./order-bench.js";
import { benchOrderCost } from "./order-cost-bench.js";
import { benchPayments } from "./payment-bench.js";
import { benchRecommendations } from "./recommendation-bench.js";
import { benchRequestCost } from "./request-cost-bench.js";
import { benchServicePort } from "./service-port-bench.js";
import { benchStart } from "./start-bench.js";
import { benchTracing } from "./tracing-bench.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 8);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 32);
const modes = (process.env["BENCH_MODES"] ?? "embedded,ferretdb,kafka").split(",");
const only = process.env["BENCH_ONLY"];
const envoyWorkers = Number(process.env["BENCH_ENVOY_WORKERS"] ?? 1);
const analyticsSettings = {
  backlog: Number(process.env["BENCH_ANALYTICS_BACKLOG"] ?? 200_000),
  orders: Number(process.env["BENCH_ANALYTICS_ORDERS"] ?? 1_000_000),
  samples: Number(process.env["BENCH_ANALYTICS_SAMPLES"] ?? 100),
  connections: Number(process.env["BENCH_ANALYTICS_CONNECTIONS"] ?? 4),
};
for (const [name, value] of Object.entries(analyticsSettings)) {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new Error(`BENCH_ANALYTICS_${name.toUpperCase()} must be a positive integer, got ${value}`);
  }
}
const parts = [
  "service-port",
  "envoy",
  "login-flood",
  "payment",
  "analytics",
  "tracing",
  "context-propagation",
  "envoy-cost",
  "start",
  "idle",
  "request-cost",
  "order-cost",
  "recommendation",
];
if (only !== undefined && !parts.includes(only)) {
  throw new Error(`BENCH_ONLY knows ${parts.map((part) => `"${part}"`).join(", ")}, not "${only}"`);
}
/** The login flood's connections: the load the identity review measured with. */
const floodConnections = 200;
const admin = { email: "admin@bench.test", password: "bench-admin-password" };
/** The platform's payment secrets: the payment bench signs callbacks as the gateway would. */
const paymentSecrets = {
  keySecret: randomBytes(32).toString("base64url"),
  webhookSecret: randomBytes(32).toString("base64url"),
};

async function json(url: string, init: RequestInit): Promise<unknown> {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  const response = await fetch(url, { ...init, headers });
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? undefined : response.json();
}

async function login(baseUrl: string, email: string, password: string): Promise<string> {
  const body = JSON.stringify({ email, password });
  return ((await json(`${baseUrl}/api/auth/login`, { method: "POST", body })) as { token: string }).token;
}

async function benchProfile(
  platform: PlatformProcess,
  mode: string,
): Promise<{ line: string; result: LoadResult }> {
  const baseUrl = platform.baseUrl;
  const user = {
    fullName: "Bench User",
    email: `bench.${mode}@example.test`,
    phoneNo: "+919876543210",
    password: "bench-password",
  };
  await json(`${baseUrl}/api/auth/register`, { method: "POST", body: JSON.stringify(user) });
  const token = await login(baseUrl, user.email, user.password);
  const result = await measure({
    url: `${baseUrl}/api/users/me`,
    headers: { authorization: `Bearer ${token}` },
    connections,
    seconds,
    cpuTime: processCpu(platform.pid),
  });
  return { line: formatResult(`GET /api/users/me via edge (${mode})`, result), result };
}

function platformEnv(scratch: string, mode: string): NodeJS.ProcessEnv {
  return {
    DATA_DIR: join(scratch, mode),
    JWT_SECRET: randomBytes(64).toString("base64url"),
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    PAYMENT_KEY_SECRET: paymentSecrets.keySecret,
    PAYMENT_WEBHOOK_SECRET: paymentSecrets.webhookSecret,
    LOG_LEVEL: "warn",
  };
}

interface ModePlatform {
  readonly platform: PlatformProcess;
  /** Kafka's brokers in the kafka pass. */
  readonly kafkaBrokers: string | undefined;
  readonly stop: () => Promise<void>;
}

/** The platform of one pass: embedded, on FerretDB, or on FerretDB + Kafka. */
async function startModePlatform(scratch: string, mode: string): Promise<ModePlatform> {
  const ferret =
    mode === "embedded"
      ? undefined
      : await startFerretDb({ dataDir: join(scratch, `ferretdb-${mode}`), log: () => undefined });
  const kafka =
    mode === "kafka"
      ? await startKafka({ dataDir: join(scratch, "kafka"), log: () => undefined })
      : undefined;
  const stopInfrastructure = async (): Promise<void> => {
    await Promise.all([ferret?.stop(), kafka?.stop()]);
  };
  const platform = await startPlatformProcess({
    ...platformEnv(scratch, mode),
    ...(ferret === undefined ? {} : { MONGODB_URL: ferret.url }),
    ...(kafka === undefined ? {} : { KAFKA_BROKERS: kafka.brokers }),
  }).catch(async (error: unknown) => {
    await stopInfrastructure();
    throw error;
  });
  return {
    platform,
    kafkaBrokers: kafka?.brokers,
    stop: async () => {
      await platform.stop();
      await stopInfrastructure();
    },
  };
}

function modeLabel(mode: string): string {
  return mode === "kafka" ? "FerretDB + Kafka" : mode;
}

/** Part 7; on FerretDB fewer payments, which take seconds each to set up there. */
async function paymentLines(platform: PlatformProcess, mode: string): Promise<string[]> {
  return benchPayments({
    baseUrl: platform.baseUrl,
    adminToken: await login(platform.baseUrl, admin.email, admin.password),
    secrets: paymentSecrets,
    pid: platform.pid,
    mode: modeLabel(mode),
    concurrency: connections,
    ...(mode === "embedded" ? {} : { payments: 200, samples: 100 }),
  });
}

async function servicePortLines(platform: PlatformProcess): Promise<string[]> {
  return benchServicePort({
    edgeUrl: platform.baseUrl,
    grpcUrl: platform.grpcUrl,
    adminToken: await login(platform.baseUrl, admin.email, admin.password),
    connections,
    seconds,
  });
}

async function loginFloodLines(platform: PlatformProcess): Promise<string[]> {
  return benchLoginFlood({
    baseUrl: platform.baseUrl,
    adminToken: await login(platform.baseUrl, admin.email, admin.password),
    connections: floodConnections,
    seconds,
  });
}

async function analyticsLines(): Promise<string[]> {
  return benchAnalytics({
    scratch,
    ...analyticsSettings,
    seconds,
    admin,
    platformEnv: (name) => platformEnv(scratch, name),
  });
}

async function tracingLines(): Promise<string[]> {
  return benchTracing({
    scratch,
    connections,
    seconds: Number(process.env["BENCH_TRACING_SLICE"] ?? 2),
    rounds: Number(process.env["BENCH_TRACING_ROUNDS"] ?? 16),
    topologies: (process.env["BENCH_TRACING_TOPOLOGIES"] ?? "embedded,envoy").split(","),
    baseline: process.env["BENCH_TRACING_BASELINE"],
    admin,
    platformEnv: (name) => platformEnv(scratch, name),
  });
}

async function startLines(): Promise<string[]> {
  return benchStart({
    connections: Number(process.env["BENCH_START_CONNECTIONS"] ?? 64),
    seconds: Number(process.env["BENCH_START_SLICE"] ?? 3),
    rounds: Number(process.env["BENCH_START_ROUNDS"] ?? 6),
    admin,
    platformEnv: (name) => platformEnv(scratch, name),
    profiles: process.env["BENCH_START_PROFILES"],
  });
}

async function contextPropagationLines(): Promise<string[]> {
  return benchContextPropagation({
    rounds: Number(process.env["BENCH_CONTEXT_ROUNDS"] ?? 7),
    referenceNode: process.env["BENCH_REFERENCE_NODE"],
  });
}

const scratch = await mkdtemp(join(tmpdir(), "commerce-bench-"));
const lines: string[] = [];
try {
  if (only === "service-port") {
    const platform = await startPlatformProcess(platformEnv(scratch, "embedded"));
    try {
      lines.push(...(await servicePortLines(platform)));
    } finally {
      await platform.stop();
    }
  }
  if (only === "login-flood") {
    const platform = await startPlatformProcess(platformEnv(scratch, "embedded"));
    try {
      lines.push(...(await loginFloodLines(platform)));
    } finally {
      await platform.stop();
    }
  }
  if (only === "payment") {
    for (const mode of modes.filter((m) => m === "embedded" || m === "kafka")) {
      const { platform, stop } = await startModePlatform(scratch, mode);
      try {
        lines.push(...(lines.length === 0 ? [] : [""]), ...(await paymentLines(platform, mode)));
      } finally {
        await stop();
      }
    }
  }
  if (only === "analytics") lines.push(...(await analyticsLines()));
  const bare = only === undefined || only === "envoy" ? await startChildServer("bare-server.ts") : undefined;
  const ceiling =
    bare === undefined ? undefined : await measure({ url: `${bare.url}/`, connections, seconds });
  await bare?.stop();
  if (only !== "envoy" && ceiling !== undefined)
    lines.push(formatResult("bare Node http, fixed JSON", ceiling));
  if (only === undefined || only === "envoy") {
    const kafka = await startKafka({ dataDir: join(scratch, "kafka-envoy"), log: () => undefined });
    try {
      const envoyLines = await benchEnvoy({
        kafkaBrokers: kafka.brokers,
        scratch,
        connections,
        seconds,
        envoyConcurrency: envoyWorkers,
        bare: ceiling,
      });
      lines.push(...(only === undefined ? ["", ...envoyLines, ""] : envoyLines));
    } finally {
      await kafka.stop();
    }
  }

  for (const mode of ceiling === undefined || only !== undefined ? [] : modes) {
    const { platform, kafkaBrokers, stop } = await startModePlatform(scratch, mode);
    try {
      lines.push(await benchEventLatency(platform.baseUrl, modeLabel(mode)));
      if (mode === "kafka") {
        lines.push(...(await benchRelay(kafkaBrokers)));
        lines.push(...(await paymentLines(platform, mode)));
        continue;
      }
      await untilQuiet(platform.baseUrl, await login(platform.baseUrl, admin.email, admin.password));
      const profile = await benchProfile(platform, mode);
      lines.push(profile.line);
      const ratio = (100 * profile.result.requestsPerSecond) / (ceiling?.requestsPerSecond ?? NaN);
      lines.push(`  ratio edge / bare: ${ratio.toFixed(1)}%${mode === "embedded" ? " (target >= 30%)" : ""}`);
      const adminToken = await login(platform.baseUrl, admin.email, admin.password);
      const catalog = await benchCatalog(platform.baseUrl, adminToken, {
        connections,
        seconds,
        mode,
        ...(mode === "ferretdb" ? { products: 200 } : {}),
      });
      lines.push(...catalog.lines);
      const byIdRatio = (100 * catalog.byId.requestsPerSecond) / (ceiling?.requestsPerSecond ?? NaN);
      lines.push(
        `  ratio product-by-id / bare: ${byIdRatio.toFixed(1)}%${mode === "embedded" ? " (target >= 35%)" : ""}`,
      );
      const orders = await benchOrders(platform.baseUrl, adminToken, {
        connections,
        seconds,
        label: `(${mode})`,
        ...(mode === "ferretdb" ? { products: 200 } : {}),
      });
      lines.push(...orders);
      if (mode === "embedded") {
        lines.push(...(await paymentLines(platform, mode)));
        lines.push("", ...(await loginFloodLines(platform)));
        lines.push("", ...(await servicePortLines(platform)));
      }
    } finally {
      await stop();
    }
  }
  if (only === undefined) lines.push("", ...(await analyticsLines()));
  if (only === "tracing") lines.push(...(await tracingLines()));
  if (only === undefined) lines.push("", ...(await tracingLines()));
  if (only === "envoy-cost" || only === undefined) {
    lines.push("", "Envoy's own cost, before and after (envoy-cost.ts)");
    lines.push(
      ...(await benchEnvoyCost({
        baseline: process.env["BENCH_ENVOY_BASELINE"] ?? "HEAD",
        connections,
        seconds,
        rounds: Number(process.env["BENCH_ENVOY_ROUNDS"] ?? 3),
      })),
    );
  }
  if (only === "start") lines.push(...(await startLines()));
  if (only === undefined) lines.push("", ...(await startLines()));
  if (only === "idle" || only === undefined) {
    lines.push("", "The topology at rest, before and after (idle-bench.ts)");
    lines.push(
      ...(await benchIdle({
        scratch,
        baseline: process.env["BENCH_IDLE_BASELINE"] ?? "ca8dea2",
        seconds: Number(process.env["BENCH_IDLE_SECONDS"] ?? 300),
        documents: Number(process.env["BENCH_IDLE_DOCUMENTS"] ?? 5_000),
        admin,
        profileDir: process.env["BENCH_IDLE_PROFILES"],
      })),
    );
  }
  if (only === "request-cost" || only === undefined) {
    lines.push("", "The cost of a request, before and after (request-cost-bench.ts)");
    lines.push(
      ...(await benchRequestCost({
        scratch,
        baseline: process.env["BENCH_REQUEST_BASELINE"] ?? "1caa5f3",
        connections,
        seconds: Number(process.env["BENCH_REQUEST_SLICE"] ?? 2),
        rounds: Number(process.env["BENCH_REQUEST_ROUNDS"] ?? 8),
        profileDir: process.env["BENCH_REQUEST_PROFILES"],
      })),
    );
  }
  if (only === "order-cost" || only === undefined) {
    lines.push("", "The cost of an order, before and after (order-cost-bench.ts)");
    lines.push(
      ...(await benchOrderCost({
        scratch,
        baseline: process.env["BENCH_ORDER_BASELINE"] ?? "25691db",
        stores: (process.env["BENCH_ORDER_STORES"] ?? "embedded,ferretdb-sqlite/ferretdb").split(","),
        brokers: process.env["BENCH_ORDER_BROKERS"] ?? "kafka-3.9/kafka",
        connections: Number(process.env["BENCH_ORDER_CONNECTIONS"] ?? 16),
        readConnections: Number(process.env["BENCH_ORDER_READ_CONNECTIONS"] ?? 32),
        seconds: Number(process.env["BENCH_ORDER_SLICE"] ?? 3),
        rounds: Number(process.env["BENCH_ORDER_ROUNDS"] ?? 6),
        admin,
        profileDir: process.env["BENCH_ORDER_PROFILES"],
      })),
    );
  }
  if (only === "recommendation" || only === undefined) {
    lines.push("", "Recommendations over a large history (recommendation-bench.ts)");
    lines.push(
      ...(await benchRecommendations({
        scratch,
        products: Number(process.env["BENCH_RECOMMENDATION_PRODUCTS"] ?? 10_000),
        orders: Number(process.env["BENCH_RECOMMENDATION_ORDERS"] ?? 1_000_000),
        connections: Number(process.env["BENCH_RECOMMENDATION_CONNECTIONS"] ?? 4),
        seconds: Number(process.env["BENCH_RECOMMENDATION_SECONDS"] ?? 10),
        stores: (process.env["BENCH_RECOMMENDATION_STORES"] ?? "chdb,clickhouse").split(","),
      })),
    );
  }
  if (only === "context-propagation") lines.push(...(await contextPropagationLines()));
  if (only === undefined) lines.push("", ...(await contextPropagationLines()));
} finally {
  await rm(scratch, { recursive: true, force: true });
}
process.stdout.write(
  `\nbenchmark (${connections} connections, ${seconds} s each after a 2 s warm-up, loopback, 2 cores shared with the load generator)\n`,
);
process.stdout.write(`${lines.join("\n")}\n`);
