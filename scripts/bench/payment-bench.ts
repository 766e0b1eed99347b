/**
 * Payment figures for `npm run bench` (ADR 0051).
 * The bench plays the gateway: it holds the platform's two payment secrets and signs
 * each callback as the sandbox gateway's checkout does.
 *
 * Setup, not timed: orders from several customers, each with a payment created through
 * POST /api/payments/create. Then:
 *   - throughput: one signed callback for each of `payments` distinct payments, `concurrency`
 *     in flight at once; callbacks/s = callbacks answered 200 / elapsed time. Checked after the
 *     run: every answer was 200 `callback processed`, every payment reads SUCCESS in
 *     GET /api/payments/my, every order reads CONFIRMED (and when the last one did);
 *   - latency: signed callback sent → its order reads CONFIRMED in GET /api/orders/{id}, one
 *     payment at a time, the order polled every 2 ms from the callback's answer on. Polling is
 *     load too, so there is only ever one request in flight.
 * A warm-up batch of callbacks, whose figures are discarded, runs before the measured one.
 * Figures only; the checks print INCONSISTENT rather than throw, as the order bench's do.
 */
import { Agent, request } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { createSandboxGateway, type SandboxSecrets, paymentSignatureHeader } from "@commerce/payment";
import { jsonOk } from "../testing/loopback-json.js";
import { cpuMicros, formatResult, percentile, type LoadResult } from "./load.js";
import { untilQuiet } from "./quiescence.js";
import { registerBuyers, seedProducts } from "./seeding.js";

export interface PaymentBenchOptions {
  /** The platform's REST edge, on loopback. */
  readonly baseUrl: string;
  readonly adminToken: string;
  /** The platform's PAYMENT_KEY_SECRET and PAYMENT_WEBHOOK_SECRET. */
  readonly secrets: SandboxSecrets;
  /** The platform's process id: its CPU time per callback. */
  readonly pid: number;
  /** Shown in the labels, e.g. "embedded". */
  readonly mode: string;
  /** Distinct payments called back in the measured run (default 4000). */
  readonly payments?: number;
  /** Callbacks in flight at once (default 32). */
  readonly concurrency?: number;
  /** Latency samples (default 200). */
  readonly samples?: number;
  /** Customers the orders come from (default 8). */
  readonly customers?: number;
}

/** An order with an open payment, and its customer's token. */
interface OpenPayment {
  readonly orderId: string;
  readonly providerOrderId: string;
  readonly token: string;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** Orders and payment creates in flight at once during setup. */
const setupConcurrency = 8;
const pollIntervalMs = 2;
const processed = "callback processed";

/** Seeds the payments, runs both measurements and returns the lines to print. */
export async function benchPayments(options: PaymentBenchOptions): Promise<string[]> {
  const base = new URL(options.baseUrl);
  if (base.hostname !== "127.0.0.1" && base.hostname !== "localhost" && base.hostname !== "[::1]") {
    throw new Error(`load runs target loopback only, not ${base.hostname}`);
  }
  const count = options.payments ?? 4000;
  const concurrency = options.concurrency ?? 32;
  const samples = options.samples ?? 200;
  const warmUp = Math.max(50, Math.round(count / 10));
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const client = createClient(options, agent);
  try {
    const all = await openPayments(options, warmUp + count + samples);
    await untilQuiet(options.baseUrl, options.adminToken);

    await inParallel(all.slice(0, warmUp), concurrency, (payment) => client.callBack(payment));
    await untilConfirmed(client, all.slice(0, warmUp), performance.now());
    await untilQuiet(options.baseUrl, options.adminToken);

    const measured = all.slice(warmUp, warmUp + count);
    const lines = await measureThroughput(options, client, measured, concurrency);
    await untilQuiet(options.baseUrl, options.adminToken);
    lines.push(await measureLatency(options.mode, client, all.slice(warmUp + count)));
    return lines;
  } finally {
    agent.destroy();
  }
}

async function measureThroughput(
  options: PaymentBenchOptions,
  client: Client,
  payments: readonly OpenPayment[],
  concurrency: number,
): Promise<string[]> {
  const cpuBefore = cpuMicros(options.pid);
  const started = performance.now();
  const answers = await inParallel(payments, concurrency, async (payment) => {
    const sent = performance.now();
    try {
      const answer = await client.callBack(payment);
      return { ...answer, ms: performance.now() - sent };
    } catch {
      return { status: 0, body: "", ms: performance.now() - sent };
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuMicros(options.pid) - cpuBefore;
  const confirmedAfterMs = await untilConfirmed(client, payments, started);
  const cpuToConfirmed = cpuMicros(options.pid) - cpuBefore;

  const ok = answers.filter((a) => a.status === 200);
  const times = answers.map((a) => a.ms).sort((a, b) => a - b);
  const result: LoadResult = {
    requestsPerSecond: ok.length / seconds,
    p50Ms: Math.round(percentile(times, 50)),
    p99Ms: Math.round(percentile(times, 99)),
    non2xx: answers.filter((a) => a.status >= 300).length,
    errors: answers.filter((a) => a.status === 0).length,
    cpuMicrosPerRequest: cpu / answers.length,
  };
  const label = `POST /api/payments/callback, ${payments.length} payments (${options.mode})`;

  const n = payments.length;
  const answeredProcessed = ok.filter((a) => messageOf(a.body) === processed).length;
  const paid = await paidCount(options.baseUrl, payments);
  const problems = [
    ...(answeredProcessed === n ? [] : [`${n - answeredProcessed} answers not 200 "${processed}"`]),
    ...(paid === n ? [] : [`${n - paid} payments not SUCCESS`]),
    ...(confirmedAfterMs === undefined ? ["orders not all CONFIRMED within 2 minutes"] : []),
  ];
  const confirmed =
    confirmedAfterMs === undefined
      ? "not all orders CONFIRMED"
      : `the last order CONFIRMED ${(confirmedAfterMs / 1000).toFixed(2)} s after the first callback ` +
        `(${Math.round(n / (confirmedAfterMs / 1000)).toLocaleString("en-US")} orders/s, ` +
        `CPU ${(cpuToConfirmed / n).toFixed(0)} µs per paid order)`;
  return [
    formatResult(label, result),
    `  ${concurrency} in flight; ${answeredProcessed} answered 200 "${processed}", ${paid} payments SUCCESS; ` +
      confirmed +
      (problems.length === 0 ? " (consistent)" : ` (INCONSISTENT: ${problems.join("; ")})`),
  ];
}

/** Callback sent → the order reads CONFIRMED, one payment at a time. */
async function measureLatency(
  mode: string,
  client: Client,
  payments: readonly OpenPayment[],
): Promise<string> {
  const latencies: number[] = [];
  const answered: number[] = [];
  for (const payment of payments) {
    const sent = performance.now();
    const answer = await client.callBack(payment);
    if (answer.status !== 200) throw new Error(`callback answered ${answer.status} ${answer.body}`);
    answered.push(performance.now() - sent);
    while ((await client.orderStatus(payment)) !== "CONFIRMED") {
      if (performance.now() - sent > 10_000)
        throw new Error(`order ${payment.orderId} not CONFIRMED in 10 s`);
      await delay(pollIntervalMs);
    }
    latencies.push(performance.now() - sent);
  }
  latencies.sort((a, b) => a - b);
  answered.sort((a, b) => a - b);
  const [p50, p99, max] = [percentile(latencies, 50), percentile(latencies, 99), latencies.at(-1) ?? NaN];
  return (
    `payment latency, signed callback sent → order reads CONFIRMED (${mode}): ` +
    `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms over ${latencies.length} ` +
    `payments, one at a time, GET /api/orders/{id} polled every ${pollIntervalMs} ms from the ` +
    `callback's answer (answered in p50 ${percentile(answered, 50).toFixed(1)} ms)`
  );
}

/** Places `count` one-line orders spread over the customers and opens a payment for each. */
async function openPayments(options: PaymentBenchOptions, count: number): Promise<OpenPayment[]> {
  const { baseUrl } = options;
  const tokens = await registerBuyers(baseUrl, options.customers ?? 8);
  const products = await seedProducts(baseUrl, options.adminToken, Math.min(count, 500), 100_000);
  const turns = Array.from({ length: count }, (_, i) => i);
  return inParallel(turns, setupConcurrency, async (i) => {
    const token = tokens[i % tokens.length] ?? "";
    const productId = products[i % products.length] ?? "";
    const order = (await jsonOk(baseUrl, "POST", "/api/orders", token, {
      items: [{ productId, quantity: 1 }],
    })) as { orderId: string; totalAmount: number };
    const payment = (await jsonOk(baseUrl, "POST", "/api/payments/create", token, {
      orderId: order.orderId,
      amount: order.totalAmount,
    })) as { providerOrderId: string };
    return { orderId: order.orderId, providerOrderId: payment.providerOrderId, token };
  });
}

/**
 * Milliseconds from `since` until every order of `payments` read CONFIRMED, or undefined after
 * two minutes. Orders are read one at a time by id, in callback order, and a read that finds
 * one not yet CONFIRMED waits 50 ms before reading it again: orders are confirmed about in
 * callback order, so the wait costs about one read per order, little beside the work it waits
 * for.
 */
async function untilConfirmed(
  client: Client,
  payments: readonly OpenPayment[],
  since: number,
): Promise<number | undefined> {
  const deadline = performance.now() + 120_000;
  for (const payment of payments) {
    while ((await client.orderStatus(payment)) !== "CONFIRMED") {
      if (performance.now() > deadline) return undefined;
      await delay(50);
    }
  }
  return performance.now() - since;
}

/** How many of `payments` read SUCCESS in their customer's GET /api/payments/my. */
async function paidCount(baseUrl: string, payments: readonly OpenPayment[]): Promise<number> {
  const ours = new Set(payments.map((p) => p.orderId));
  let paid = 0;
  for (const token of new Set(payments.map((p) => p.token))) {
    const mine = (await jsonOk(baseUrl, "GET", "/api/payments/my", token)) as {
      orderId: string;
      status: string;
    }[];
    paid += mine.filter((p) => ours.has(p.orderId) && p.status === "SUCCESS").length;
  }
  return paid;
}

interface Client {
  /** Pays `payment` at the sandbox checkout and posts the callback the gateway would send. */
  callBack(payment: OpenPayment): Promise<Answer>;
  /** The order's status, read by its owner. */
  orderStatus(payment: OpenPayment): Promise<string>;
}

/** Requests over kept-alive loopback connections, as many at once as the agent allows. */
function createClient(options: PaymentBenchOptions, agent: Agent): Client {
  const gateway = createSandboxGateway(options.secrets);
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request(new URL(path, options.baseUrl), { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  return {
    callBack(payment) {
      const callback = gateway.checkout(payment.providerOrderId, "paid");
      return send(
        "POST",
        "/api/payments/callback",
        { "content-type": "application/json", [paymentSignatureHeader]: callback.signature },
        callback.body,
      );
    },
    async orderStatus(payment) {
      const path = `/api/orders/${payment.orderId}`;
      const answer = await send("GET", path, { authorization: `Bearer ${payment.token}` });
      if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.body}`);
      return (JSON.parse(answer.body) as { status: string }).status;
    },
  };
}

function messageOf(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { message?: string }).message;
  } catch {
    return undefined;
  }
}

/** `work` over `items`, at most `concurrency` at a time; results in the items' order. */
async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
