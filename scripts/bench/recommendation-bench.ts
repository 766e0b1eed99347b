/**
 * Recommendations over a large history (`npm run bench`, BENCH_ONLY=recommendation), on both
 * analytics stores the platform runs on: chDB in this process (embedded mode) and a ClickHouse
 * server. Each store is seeded through the Recommendation service's own batch handler (the real
 * write path) with BENCH_RECOMMENDATION_PRODUCTS listed products (default 10,000) in eight
 * categories and BENCH_RECOMMENDATION_ORDERS orders (default 1,000,000) of one to five products,
 * drawn with a skew towards the lower-numbered products as real catalogs sell, by 100,000
 * customers, one in twenty later cancelled. Then:
 *
 * - the reads (`alsoBought` of a product, `forCustomer` of a customer, both size 4), from
 *   BENCH_RECOMMENDATION_CONNECTIONS concurrent callers (default 4) for
 *   BENCH_RECOMMENDATION_SECONDS (default 10): latency percentiles by read, through the copy of
 *   the rankings the service reads from, with the heap it takes;
 * - `forCustomer` again through a copy that holds no customer, so that every read asks the
 *   store for the customer's purchases by key (a customer beyond those held);
 * - freshness: an order of two new products handed to the handler, until `alsoBought` of one
 *   names the other (the write, and the reader's copy of the rankings polling for it every
 *   250 ms; a consumer adds up to its 200 ms batch wait).
 *
 * Figures only, never asserted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  createClickHouseAnalyticsStore,
  identifier,
  migrateAnalyticsStore,
  openAnalyticsStore,
  sql,
  type AnalyticsStore,
} from "@commerce/runtime/analytics";
import type { BatchHandler, EventRecord } from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import {
  createCoPurchaseProcessor,
  createRankingsReplica,
  createRecommendationReads,
  defaultCustomersHeld,
  purchasesList,
  type RecommendationReads,
  recommendationMigrations,
  recommendationVersionTable,
} from "@commerce/recommendation";
import { customerOf, listed, placed, statusUpdated } from "@commerce/recommendation/testing";
import { startClickHouse } from "../infra/clickhouse.js";
import { percentile } from "./load.js";
import { between, seededRandom, type Random } from "./seeded-random.js";

export interface RecommendationBenchOptions {
  readonly scratch: string;
  readonly products: number;
  readonly orders: number;
  readonly connections: number;
  readonly seconds: number;
  /** `chdb`, `clickhouse` (BENCH_RECOMMENDATION_STORES, default both). */
  readonly stores: readonly string[];
}

const categories = ["electronics", "fashion", "home", "books", "beauty", "sports", "toys", "grocery"];
const customers = 100_000;
const batchRecords = 10_000;
const freshnessSamples = 20;

const productId = (n: number): string => `p${String(n).padStart(6, "0")}`;
const customerEmail = (n: number): string => `c${n}@bench.test`;

/** A product drawn with a skew: the square of a uniform draw favours the low numbers. */
const skewedProduct = (random: Random, products: number): number => Math.floor(random() ** 2 * products);

/** The history, in the order a consumer would meet it: the catalog, then the orders. */
function* history(options: RecommendationBenchOptions): Generator<EventRecord> {
  for (let n = 0; n < options.products; n += 1) {
    yield listed(productId(n), categories[n % categories.length] ?? "home");
  }
  const random = seededRandom(30);
  for (let n = 0; n < options.orders; n += 1) {
    const items = new Set<string>();
    const wanted = between(random, 1, 5);
    while (items.size < wanted) items.add(productId(skewedProduct(random, options.products)));
    const customer = customerEmail(between(random, 0, customers - 1));
    yield placed(`o${n}`, customer, [...items]);
    if (random() < 0.05) yield statusUpdated(`o${n}`, customer, "CANCELLED");
  }
}

async function seed(handle: BatchHandler, options: RecommendationBenchOptions): Promise<number> {
  const started = performance.now();
  const signal = new AbortController().signal;
  let batch: EventRecord[] = [];
  for (const record of history(options)) {
    batch.push(record);
    if (batch.length === batchRecords) {
      await handle({ topic: "order-events", partition: 0, records: batch }, signal);
      batch = [];
    }
  }
  if (batch.length > 0) await handle({ topic: "order-events", partition: 0, records: batch }, signal);
  return (performance.now() - started) / 1_000;
}

interface Latencies {
  readonly alsoBought: number[];
  readonly forCustomer: number[];
}

/** Alternating reads from each caller, or `forCustomer` only. */
async function loadReads(
  reads: RecommendationReads,
  options: RecommendationBenchOptions,
  customersOnly = false,
): Promise<Latencies> {
  const latencies: Latencies = { alsoBought: [], forCustomer: [] };
  const until = performance.now() + options.seconds * 1_000;
  await Promise.all(
    Array.from({ length: options.connections }, async (_, caller) => {
      const random = seededRandom(100 + caller);
      for (let i = 0; performance.now() < until; i += 1) {
        const started = performance.now();
        if (i % 2 === 0 && !customersOnly) {
          await reads.alsoBought(productId(skewedProduct(random, options.products)), 4);
          latencies.alsoBought.push(performance.now() - started);
        } else {
          await reads.forCustomer(customerOf(customerEmail(between(random, 0, customers - 1))), 4);
          latencies.forCustomer.push(performance.now() - started);
        }
      }
    }),
  );
  return latencies;
}

/** Milliseconds from handing over an order of two new products until one recommends the other. */
async function freshness(reads: RecommendationReads, handle: BatchHandler): Promise<number[]> {
  const signal = new AbortController().signal;
  const samples: number[] = [];
  for (let n = 0; n < freshnessSamples; n += 1) {
    const [first, second] = [`fresh-${n}-a`, `fresh-${n}-b`];
    await handle(
      { topic: "product-events", partition: 0, records: [listed(first, "home"), listed(second, "home")] },
      signal,
    );
    const started = performance.now();
    await handle(
      {
        topic: "order-events",
        partition: 0,
        records: [placed(`fresh-${n}`, "f@bench.test", [first, second])],
      },
      signal,
    );
    while (!(await reads.alsoBought(first, 4)).includes(second)) {
      if (performance.now() - started > 10_000) throw new Error("a new order was not reflected within 10 s");
      await delay(2);
    }
    samples.push(performance.now() - started);
  }
  return samples;
}

/** The heap in use once garbage is collected (the collector is exposed for this process). */
function settledHeap(): number {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
  return process.memoryUsage().heapUsed;
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;

function summary(label: string, latencies: readonly number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `    ${label.padEnd(12)} ${String(sorted.length).padStart(6)} reads   p50 ${ms(percentile(sorted, 50))}   p99 ${ms(percentile(sorted, 99))}`;
}

async function benchStore(
  name: string,
  store: AnalyticsStore,
  options: RecommendationBenchOptions,
): Promise<string[]> {
  await migrateAnalyticsStore(store, recommendationMigrations, recommendationVersionTable);
  const handle = createCoPurchaseProcessor(store);
  const seconds = await seed(handle, options);
  const [pairs] = await store.query<{ rows: string }>(sql`SELECT count() AS rows FROM recommendation_pairs`);
  // Every customer who bought has a list; the copy holds as many as it may.
  const [buyers] = await store.query<{ rows: string }>(
    sql`SELECT least(uniqExact(subject), ${defaultCustomersHeld}) AS rows FROM recommendation_rankings
      WHERE list = ${purchasesList}`,
  );
  const logger = createLogger("warn", "recommendation-bench");
  // As the service reads: through its copy of the rankings, which polls the store (rankings-replica.ts).
  const heapBefore = settledHeap();
  const rankings = createRankingsReplica(store, { logger });
  await rankings.start();
  const heldBytes = settledHeap() - heapBefore;
  const reads = createRecommendationReads(rankings);
  let latencies: Latencies;
  let fresh: number[];
  try {
    latencies = await loadReads(reads, options);
    fresh = [...(await freshness(reads, handle))].sort((a, b) => a - b);
  } finally {
    await rankings.stop();
  }
  const holdingNone = createRankingsReplica(store, { logger, customersHeld: 0 });
  await holdingNone.start();
  let notHeld: Latencies;
  try {
    notHeld = await loadReads(createRecommendationReads(holdingNone), options, true);
  } finally {
    await holdingNone.stop();
  }
  return [
    `  ${name}: seeded ${options.orders.toLocaleString("en-US")} orders in ${seconds.toFixed(0)} s (${Number(pairs?.rows ?? 0).toLocaleString("en-US")} pair rows)`,
    summary("alsoBought", latencies.alsoBought),
    summary("forCustomer", latencies.forCustomer),
    summary("not held", notHeld.forCustomer),
    `    the copy: ${(heldBytes / 2 ** 20).toFixed(0)} MB of heap for every product's rankings and ${Number(buyers?.rows ?? 0).toLocaleString("en-US")} customers' purchases`,
    `    a new order reflected: p50 ${ms(percentile(fresh, 50))}, worst ${ms(fresh.at(-1) ?? 0)} of ${fresh.length}`,
  ];
}

export async function benchRecommendations(options: RecommendationBenchOptions): Promise<string[]> {
  const lines = [
    `recommendations over ${options.products.toLocaleString("en-US")} products and ${options.orders.toLocaleString("en-US")} orders, ${options.connections} concurrent callers for ${options.seconds} s (target: p99 < 20 ms; a new order within 1 s)`,
  ];
  if (options.stores.includes("chdb")) {
    const dataDir = await mkdtemp(join(options.scratch, "recommendation-chdb-"));
    const store = await openAnalyticsStore({ clickHouse: undefined, chdbDir: dataDir });
    try {
      lines.push(...(await benchStore("chDB (embedded)", store, options)));
    } finally {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  if (options.stores.includes("clickhouse")) {
    const server = await startClickHouse({ dataDir: join(options.scratch, "recommendation-clickhouse") });
    const admin = createClickHouseAnalyticsStore({ url: server.url });
    await admin.command(sql`CREATE DATABASE IF NOT EXISTS ${identifier("bench_recommendation")}`);
    await admin.close();
    const store = createClickHouseAnalyticsStore({ url: server.url, database: "bench_recommendation" });
    try {
      lines.push(...(await benchStore("ClickHouse 18.16", store, options)));
    } finally {
      await store.close();
      await server.stop();
    }
  }
  return lines;
}
