/**
 * Event-to-dashboard freshness (issue 10), at idle: a customer places an order
 * (POST /api/orders), and the bench polls GET /api/analytics/orders as the admin every 10 ms
 * from the order's answer until `totalOrders` counts it: the outbox relay, the bus, the
 * processor's batch (which waits up to 200 ms to fill) and the store's insert, seen through the
 * API. One order at a time, about 50 ms apart, so the pipeline is idle when each starts; a
 * first order, not counted, warms the path up (a platform just started loads code lazily).
 */
import { setTimeout as delay } from "node:timers/promises";
import { jsonOk } from "../testing/loopback-json.js";
import { percentile } from "./load.js";
import { registerBuyers, seedProducts } from "./seeding.js";

export interface FreshnessOptions {
  /** The platform's REST edge, on loopback. */
  readonly baseUrl: string;
  readonly adminToken: string;
  /** Shown in the label, e.g. "embedded, chDB". */
  readonly mode: string;
  readonly samples: number;
}

const pollMs = 10;
const pauseMs = 50;
const sampleTimeoutMs = 10_000;

export async function benchFreshness(options: FreshnessOptions): Promise<string> {
  const { baseUrl, adminToken } = options;
  const [productId] = await seedProducts(baseUrl, adminToken, 1, options.samples + 1_000);
  const [token] = await registerBuyers(baseUrl, 1);
  const totalOrders = async (): Promise<number> =>
    ((await jsonOk(baseUrl, "GET", "/api/analytics/orders", adminToken)) as { totalOrders: number })
      .totalOrders;

  const latencies: number[] = [];
  const answers: number[] = [];
  for (let i = -1; i < options.samples; i++) {
    const before = await totalOrders();
    const sent = performance.now();
    await jsonOk(baseUrl, "POST", "/api/orders", token, { items: [{ productId, quantity: 1 }] });
    const answered = performance.now();
    if (i >= 0) answers.push(answered - sent);
    while ((await totalOrders()) <= before) {
      if (performance.now() - answered > sampleTimeoutMs) {
        throw new Error(
          `an order placed did not reach GET /api/analytics/orders within ${sampleTimeoutMs} ms`,
        );
      }
      await delay(pollMs);
    }
    if (i >= 0) latencies.push(performance.now() - answered);
    await delay(pauseMs);
  }
  latencies.sort((a, b) => a - b);
  answers.sort((a, b) => a - b);
  const ms = (p: number): string => percentile(latencies, p).toFixed(0);
  return (
    `analytics freshness, order placed → counted by GET /api/analytics/orders (${options.mode}): ` +
    `p50 ${ms(50)} ms, p99 ${ms(99)} ms, max ${(latencies.at(-1) ?? Number.NaN).toFixed(0)} ms over ` +
    `${latencies.length} orders, one at a time, polled every ${pollMs} ms from the order's answer ` +
    `(POST /api/orders answered in p50 ${percentile(answers, 50).toFixed(0)} ms)`
  );
}
