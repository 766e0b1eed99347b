/**
 * Analytics endpoint latency over a large store (issue 10): seed an analytics store with a year
 * of orders through the processor's own batch handler (`createStreamProcessor`, the real write
 * path: whatever tables and rollups the processor keeps, the seed fills them), then load each
 * endpoint of a platform started on that store.
 *
 * The seed runs in this process: the history (order-history.ts) is cut into batches of 10,000
 * records of one topic each, as a consumer hands them over, and one batch is written while the
 * next is built.
 *
 * Each endpoint is measured twice: one request at a time (its latency alone, and the CPU the
 * store's process spends per request), then under load over a few connections (`measure`),
 * whose p99 the target is judged on. Before each, the store's process and the
 * platform are left to go idle: after the seed ClickHouse merges its parts for a while, and a
 * load run leaves queries running that its abandoned requests started.
 */
import {
  migrateAnalyticsStore,
  openAnalyticsStore,
  type AnalyticsStoreSettings,
} from "@commerce/runtime/analytics";
import type { EventRecord } from "@commerce/runtime/events";
import { formatDate } from "@commerce/runtime/time";
import { analyticsMigrations } from "@commerce/analytics";
import { createStreamProcessor } from "@commerce/analytics/processor";
import { jsonOk } from "../testing/loopback-json.js";
import { untilIdle } from "./idle-process.js";
import { cpuMicros, formatResult, measure, percentile, processCpu } from "./load.js";
import { orderHistory, type OrderHistoryOptions } from "./order-history.js";

const batchRecords = 10_000;
const dayMs = 24 * 60 * 60 * 1000;
/** The target for every endpoint over a million orders. */
const targetP99Ms = 100;

/** Seeds the store `settings` select with `history`; returns the line to print. */
export async function seedOrderHistory(
  settings: AnalyticsStoreSettings,
  history: OrderHistoryOptions,
  label: string,
): Promise<string> {
  const started = performance.now();
  const store = await openAnalyticsStore(settings);
  const byType = new Map<string, number>();
  let events = 0;
  try {
    await migrateAnalyticsStore(store, analyticsMigrations);
    const handle = createStreamProcessor(store);
    const signal = new AbortController().signal;
    const buffers = new Map<string, EventRecord[]>();
    let writing: Promise<void> = Promise.resolve();
    const flush = async (topic: string, records: EventRecord[]): Promise<void> => {
      await writing;
      writing = handle({ topic, partition: 0, records }, signal);
    };
    for (const record of orderHistory(history)) {
      events += 1;
      byType.set(record.type, (byType.get(record.type) ?? 0) + 1);
      const buffer = buffers.get(record.topic);
      if (buffer === undefined) {
        buffers.set(record.topic, [record]);
      } else if (buffer.push(record) >= batchRecords) {
        buffers.delete(record.topic);
        await flush(record.topic, buffer);
      }
    }
    for (const [topic, records] of buffers) await flush(topic, records);
    await writing;
  } finally {
    await store.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const n = (count: number): string => count.toLocaleString("en-US");
  const mix = [...byType].map(([type, count]) => `${n(count)} ${type}`).join(", ");
  return (
    `seeded ${label} with ${n(history.orders)} orders over ${history.days} days: ${n(events)} events ` +
    `(${mix}) through the processor's batch handler in ${seconds.toFixed(1)} s ` +
    `(${n(Math.round(events / seconds))} events/s, batches of ${n(batchRecords)})`
  );
}

/** A process whose CPU time the one-at-a-time figures report per request. */
export interface StoreProcess {
  readonly pid: number;
  /** E.g. "ClickHouse server". */
  readonly name: string;
}

export interface EndpointBenchOptions {
  /** A platform started on the seeded store. */
  readonly baseUrl: string;
  readonly adminToken: string;
  /** The platform's process: its CPU time per request under load. */
  readonly pid: number;
  /** Where the queries run: the ClickHouse server, or the platform itself for chDB. */
  readonly store: StoreProcess;
  /** Shown in the labels, e.g. "ClickHouse". */
  readonly mode: string;
  readonly connections: number;
  readonly seconds: number;
}

interface OrderStats {
  readonly totalOrders: number;
  readonly ordersByStatus: Readonly<Record<string, number>>;
}

/** How long the store may take to settle after the seed, and between endpoints. */
const settleAfterSeedMs = 180_000;
const settleBetweenMs = 30_000;
/** A request of the one-at-a-time run that takes longer than this ends the run. */
const requestTimeoutMs = 60_000;
const maxAlone = 200;

/**
 * Loads each analytics endpoint in turn, each after the store's process and the platform went
 * idle (`untilIdle`): first one request at a time (its pure latency, and the store's CPU per
 * request), then over `connections` connections with `measure`. Returns the lines to print.
 */
export async function benchAnalyticsEndpoints(options: EndpointBenchOptions): Promise<string[]> {
  const { baseUrl, adminToken } = options;
  const quiet = [...new Set([options.pid, options.store.pid])];
  const settled = await untilIdle(quiet, settleAfterSeedMs);
  const today = Date.now();
  const yearAgo = formatDate(new Date(today - 365 * dayMs));
  const endpoints = [
    { name: "dashboard", path: "/api/analytics/dashboard" },
    { name: "revenue, 30 days", path: "/api/analytics/revenue" },
    {
      name: "revenue, 366 days",
      path: `/api/analytics/revenue?from=${yearAgo}&to=${formatDate(new Date(today))}`,
    },
    { name: "orders", path: "/api/analytics/orders" },
  ];
  const coldStarted = performance.now();
  const stats = (await jsonOk(baseUrl, "GET", "/api/analytics/orders", adminToken)) as OrderStats;
  const coldMs = performance.now() - coldStarted;
  const dashboard = (await jsonOk(baseUrl, "GET", "/api/analytics/dashboard", adminToken)) as {
    totalUsers: number;
    totalRevenue: number;
  };
  const n = (count: number): string => count.toLocaleString("en-US");
  const byStatus = Object.entries(stats.ordersByStatus)
    .map(([status, count]) => `${status} ${n(count)}`)
    .join(", ");
  const lines = [
    `the platform on ${options.mode} reads ${n(stats.totalOrders)} orders (${byStatus}), ` +
      `${n(dashboard.totalUsers)} users, revenue ${n(dashboard.totalRevenue)}; ` +
      `its first GET /api/analytics/orders took ${coldMs.toFixed(0)} ms; the ${options.store.name} ` +
      (settled === undefined
        ? `was still busy after ${settleAfterSeedMs / 1000} s`
        : `settled ${(settled / 1000).toFixed(1)} s after the platform started`),
  ];
  const verdicts: string[] = [];
  for (const endpoint of endpoints) {
    const url = `${baseUrl}${endpoint.path}`;
    await untilIdle(quiet, settleBetweenMs);
    const alone = await oneAtATime(url, adminToken, options.seconds, options.store.pid);
    const loaded = await measure({
      url,
      headers: { authorization: `Bearer ${adminToken}` },
      connections: options.connections,
      seconds: options.seconds,
      cpuTime: processCpu(options.pid),
    });
    const label = `GET analytics ${endpoint.name} (${options.mode})`;
    const answered = loaded.requestsPerSecond > 0;
    lines.push(
      answered
        ? formatResult(label, loaded)
        : `${label.padEnd(44)} no request answered within ${options.seconds} s over ${options.connections} connections`,
      `  one at a time: ${describeAlone(alone, options.store.name)}`,
    );
    verdicts.push(`${endpoint.name} ${answered && loaded.p99Ms < targetP99Ms ? "met" : "MISSED"}`);
  }
  lines.push(
    `  under load: ${options.connections} connections; target p99 < ${targetP99Ms} ms over 1,000,000 orders ` +
      `(this store: ${n(stats.totalOrders)}): ${verdicts.join(", ")}`,
  );
  return lines;
}

interface AloneRun {
  /** Each request's time, ms, in the order sent. */
  readonly times: number[];
  /** The store process's CPU time over the run, µs. */
  readonly cpuMicros: number;
  /** Why the run stopped early, if it did. */
  readonly failure?: string;
}

/**
 * Requests `url` one after another for `seconds` (at most `maxAlone` requests), after one
 * request that warms the path up, and reads `pid`'s CPU time over the run.
 */
async function oneAtATime(url: string, token: string, seconds: number, pid: number): Promise<AloneRun> {
  const get = async (): Promise<void> => {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const body = await response.text();
    if (!response.ok) throw new Error(`answered ${response.status} ${body}`);
  };
  const times: number[] = [];
  const before = cpuMicros(pid);
  try {
    await get();
    const cpuStart = cpuMicros(pid);
    const end = performance.now() + seconds * 1000;
    while (times.length < maxAlone && performance.now() < end) {
      const sent = performance.now();
      await get();
      times.push(performance.now() - sent);
    }
    return { times, cpuMicros: cpuMicros(pid) - cpuStart };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { times, cpuMicros: cpuMicros(pid) - before, failure: why };
  }
}

function describeAlone(run: AloneRun, storeName: string): string {
  const sorted = [...run.times].sort((a, b) => a - b);
  const failure = run.failure === undefined ? "" : ` (stopped: ${run.failure})`;
  if (sorted.length === 0) return `no request answered${failure}`;
  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  return (
    `p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1) ?? 0)} ` +
    `over ${sorted.length} requests; ${storeName} CPU ${(run.cpuMicros / sorted.length / 1000).toFixed(1)} ms ` +
    `per request${failure}`
  );
}
