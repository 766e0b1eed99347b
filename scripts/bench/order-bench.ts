/**
 * Orders placed per second through the edge: POST /api/orders with one line of one unit,
 * spread over many distinct products, then all on one hot product (every order contends for
 * the same stock). Figures only, never asserted, except that the hot product's stock must
 * account for every order placed: a benchmark that oversells is not measuring anything.
 *
 * The platform runs in its own process (the caller starts it); the load comes from here with
 * autocannon over loopback, bounded in time. Each run is preceded by a warm-up whose figures
 * are discarded. Stock is seeded far above what a run can sell, so no order fails for lack of
 * it.
 */
import autocannon from "autocannon";
import { setTimeout as delay } from "node:timers/promises";
import { jsonOk } from "../testing/loopback-json.js";
import { formatResult, warmUpSeconds, type LoadResult, type LoadRun } from "./load.js";
import { registerBuyers, seedProducts } from "./seeding.js";

export interface OrderBenchOptions {
  /** Concurrent connections (default 32). */
  readonly connections?: number;
  /** Measured seconds per scenario (default 8), after a 2 s warm-up. */
  readonly seconds?: number;
  /** Distinct products of the spread scenario (default 1000). */
  readonly products?: number;
  /** Distinct registered customers the orders come from (default 16). */
  readonly buyers?: number;
  /** Appended to each line's label, e.g. "(embedded)". */
  readonly label?: string;
}

/** The contract's per-product stock ceiling: far above what a run sells (≈ 10^4 orders/s). */
const seedStock = 1_000_000;

export interface Seeded {
  readonly productIds: readonly string[];
  readonly tokens: readonly string[];
}

/**
 * One autocannon run of POST /api/orders; each request takes the next product and buyer in turn.
 * It lasts `seconds`, or until `{ orders }` have been answered.
 */
export async function orderLoad(
  baseUrl: string,
  seeded: Seeded,
  connections: number,
  length: number | { readonly orders: number },
): Promise<LoadRun> {
  let turn = 0;
  const result = await autocannon({
    url: new URL("/api/orders", baseUrl).toString(),
    connections,
    ...(typeof length === "number" ? { duration: length } : { amount: length.orders }),
    pipelining: 1,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => {
          turn += 1;
          const productId = seeded.productIds[turn % seeded.productIds.length] ?? "";
          const token = seeded.tokens[turn % seeded.tokens.length] ?? "";
          return {
            ...request,
            headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
            body: JSON.stringify({ items: [{ productId, quantity: 1 }] }),
          };
        },
      },
    ],
  });
  return {
    total: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Orders placed per second after a warm-up, each request the next product and buyer in turn. */
async function measureOrders(
  baseUrl: string,
  seeded: Seeded,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  await orderLoad(baseUrl, seeded, connections, warmUpSeconds);
  return orderLoad(baseUrl, seeded, connections, seconds);
}

/**
 * Seeds products and buyers on the platform at `baseUrl` (loopback only), runs both scenarios
 * and returns the lines to print.
 */
export async function benchOrders(
  baseUrl: string,
  adminToken: string,
  options: OrderBenchOptions = {},
): Promise<string[]> {
  const host = new URL(baseUrl).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") {
    throw new Error(`load runs target loopback only, not ${host}`);
  }
  const connections = options.connections ?? 32;
  const seconds = options.seconds ?? 8;
  const productCount = options.products ?? 1000;
  const label = options.label === undefined ? "" : ` ${options.label}`;

  const tokens = await registerBuyers(baseUrl, options.buyers ?? 16);
  const spread = await seedProducts(baseUrl, adminToken, productCount, seedStock);
  const [hot] = await seedProducts(baseUrl, adminToken, 1, seedStock);
  if (hot === undefined) throw new Error("the hot product was not created");

  const lines: string[] = [];
  const many = await measureOrders(baseUrl, { productIds: spread, tokens }, connections, seconds);
  lines.push(formatResult(`POST /api/orders, ${productCount} products${label}`, many));
  // Requests still in flight when a load stops finish on the server: let them land first.
  const before = await settled(baseUrl, adminToken, hot);
  const one = await measureOrders(baseUrl, { productIds: [hot], tokens }, connections, seconds);
  lines.push(formatResult(`POST /api/orders, one hot product${label}`, one));

  const after = await settled(baseUrl, adminToken, hot);
  const placed = after.orders - before.orders;
  const stock = after.stock;
  lines.push(
    `hot product: ${placed} orders, stock ${seedStock} → ${stock}` +
      (seedStock - stock === placed ? " (consistent)" : ` (INCONSISTENT: ${seedStock - stock} units taken)`),
  );
  return lines;
}

/**
 * The order count and the hot product's stock once both have stopped moving. When a load stops,
 * the client drops the requests still in flight: the server abandons those orders and gives
 * their stock back (ADR 0022), which on FerretDB takes a
 * few seconds after the last order landed.
 */
async function settled(
  baseUrl: string,
  adminToken: string,
  productId: string,
): Promise<{ orders: number; stock: number }> {
  let previous = "";
  for (let round = 0; round < 60; round++) {
    await delay(1_000);
    const orders = await orderCount(baseUrl, adminToken);
    const { stock } = (await jsonOk(baseUrl, "GET", `/api/products/${productId}`)) as { stock: number };
    const now = `${orders}/${stock}`;
    if (now === previous) return { orders, stock };
    previous = now;
  }
  throw new Error("orders or stock kept moving for a minute after the load stopped");
}

async function orderCount(baseUrl: string, adminToken: string): Promise<number> {
  return ((await jsonOk(baseUrl, "GET", "/api/orders", adminToken)) as unknown[]).length;
}
