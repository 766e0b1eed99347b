/**
 * One measured load run with autocannon: a fixed number of connections for a fixed time,
 * against a loopback URL only. Returns throughput and latency percentiles.
 */
import autocannon from "autocannon";

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly method?: "GET" | "POST" | "PUT";
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly connections?: number;
  readonly seconds?: number;
}

/**
 * Measures after a short warm-up run whose figures are discarded, so that JIT compilation and
 * lazily loaded code count against neither side of a comparison.
 */
export async function measure(options: LoadOptions): Promise<LoadResult> {
  const host = new URL(options.url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") {
    throw new Error(`load runs target loopback only, not ${host}`);
  }
  await run({ ...options, seconds: 2 });
  return run(options);
}

async function run(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections ?? 32,
    duration: options.seconds ?? 8,
    pipelining: 1,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function formatResult(label: string, r: LoadResult): string {
  const rps = Math.round(r.requestsPerSecond).toLocaleString("en-US");
  const faults = r.non2xx + r.errors === 0 ? "" : `  (non-2xx ${r.non2xx}, errors ${r.errors})`;
  return `${label.padEnd(44)} ${rps.padStart(8)} req/s   p50 ${String(r.p50Ms).padStart(4)} ms   p99 ${String(r.p99Ms).padStart(4)} ms${faults}`;
}
