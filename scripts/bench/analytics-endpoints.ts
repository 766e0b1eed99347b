/**
 * Analytics endpoint latency over a large store (issue 10): seed an analytics store with a year
 * of orders through the processor's own batch handler (`createStreamProcessor`, the real write
 * path: whatever tables and rollups the processor keeps, the seed fills them), then load each
 * endpoint of a platform started on that store.
 *
 * The seed runs in this process: the history (order-history.ts) is cut into batches of 10,000
 * records of one topic each, as a consumer hands them over, and one batch is written while the
 * next is built.
 */
import { migrateAnalyticsStore } from "@commerce/runtime/analytics/analytics-migrations.js";
import {
  openAnalyticsStore,
  type AnalyticsStoreSettings,
} from "@commerce/runtime/analytics/analytics-store-settings.js";
import type { EventRecord } from "@commerce/runtime/events/event-bus.js";
import { formatDate } from "@commerce/runtime/time/wall-clock.js";
import { analyticsMigrations } from "@commerce/analytics/analytics-schema.js";
import { createStreamProcessor } from "@commerce/analytics/processor/stream-processor.js";
import { jsonOk } from "../testing/loopback-json.js";
import { formatResult, measure, type LoadResult } from "./load.js";
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

export interface EndpointBenchOptions {
  /** A platform started on the seeded store. */
  readonly baseUrl: string;
  readonly adminToken: string;
  /** The platform's process: its CPU time per request. */
  readonly pid: number;
  /** Shown in the labels, e.g. "ClickHouse". */
  readonly mode: string;
  readonly connections: number;
  readonly seconds: number;
}

interface OrderStats {
  readonly totalOrders: number;
  readonly ordersByStatus: Readonly<Record<string, number>>;
}

/** Loads each analytics endpoint in turn; returns the lines to print. */
export async function benchAnalyticsEndpoints(options: EndpointBenchOptions): Promise<string[]> {
  const { baseUrl, adminToken } = options;
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
      `its first GET /api/analytics/orders took ${coldMs.toFixed(0)} ms`,
  ];
  const results: { name: string; result: LoadResult }[] = [];
  for (const endpoint of endpoints) {
    const result = await measure({
      url: `${baseUrl}${endpoint.path}`,
      headers: { authorization: `Bearer ${adminToken}` },
      connections: options.connections,
      seconds: options.seconds,
      cpuOfPid: options.pid,
    });
    results.push({ name: endpoint.name, result });
    lines.push(formatResult(`GET analytics ${endpoint.name} (${options.mode})`, result));
  }
  lines.push(
    `  ${options.connections} connections; target p99 < ${targetP99Ms} ms over 1,000,000 orders ` +
      `(this store: ${n(stats.totalOrders)}): ` +
      results
        .map(({ name, result }) => `${name} ${result.p99Ms < targetP99Ms ? "met" : "MISSED"}`)
        .join(", "),
  );
  return lines;
}
