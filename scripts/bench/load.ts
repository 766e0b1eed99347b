/**
 * One measured load run with autocannon: a fixed number of connections for a fixed time,
 * against a loopback URL only. Returns throughput and latency percentiles.
 */
import autocannon from "autocannon";
import { readdirSync, readFileSync } from "node:fs";

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /**
   * CPU time the server (`cpuTime`) spent per request, user plus system: steadier than
   * throughput on a shared machine, whose run-to-run swing is about ±20%.
   */
  readonly cpuMicrosPerRequest?: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly method?: "GET" | "POST" | "PUT";
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly connections?: number;
  readonly seconds?: number;
  /** The server's CPU time so far in µs (`processCpu`): the result then holds it per request. */
  readonly cpuTime?: CpuClock;
}

/**
 * Measures after a short warm-up run whose figures are discarded, so that JIT compilation and
 * lazily loaded code count against neither side of a comparison.
 */
export async function measure(options: LoadOptions): Promise<LoadResult> {
  await loadRun({ ...options, seconds: warmUpSeconds });
  const clock = options.cpuTime;
  const before = clock?.() ?? 0;
  const { total, ...result } = await loadRun(options);
  // A run in which no request completed has no CPU time per request.
  if (clock === undefined || total === 0) return result;
  return { ...result, cpuMicrosPerRequest: (clock() - before) / total };
}

/** CPU time spent so far, in µs: of a process, a set of them. */
export type CpuClock = () => number;

/** The CPU time of the process `pid` (Linux). */
export const processCpu =
  (pid: number): CpuClock =>
  () =>
    cpuMicros(pid);

/** The CPU time of the processes `pids` and their descendants: a deployment of several. */
export const processesCpu =
  (pids: readonly number[]): CpuClock =>
  () =>
    pids.reduce((total, pid) => total + treeCpuMicros(pid), 0);

/** The processes this one has started and that still run (Linux). */
export function childProcesses(): number[] {
  return childPids(process.pid);
}

function childPids(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
    return children === "" ? [] : children.split(" ").map(Number);
  });
}

/** The fields of /proc/<pid>/stat after the command name (field 3 onwards). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** utime + stime of a process from /proc, in µs (clock ticks are 100 per second on Linux). */
export function cpuMicros(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** cutime + cstime: what the children a process has waited for spent, in µs. */
function reapedChildrenMicros(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[13]) + Number(fields[14])) * 10_000;
}

/**
 * CPU time of a process and all its descendants (a launcher and what it runs), in µs: those
 * running now, and those that ended and were waited for (a database's backend per connection,
 * counted in its parent's cutime), so that a tree's clock never goes back when one ends.
 */
export function treeCpuMicros(pid: number): number {
  return childPids(pid).reduce(
    (total, child) => total + treeCpuMicros(child),
    cpuMicros(pid) + reapedChildrenMicros(pid),
  );
}

/** The descendants of `pid` running now (children, their children, …). */
export function descendantPids(pid: number): number[] {
  return childPids(pid).flatMap((child) => [child, ...descendantPids(child)]);
}

/** A process's command name (`/proc/<pid>/comm`: `postgres`, `java`, …). */
export function commandName(pid: number): string {
  return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
}

/** How long a warm-up runs before a measured load, its figures discarded. */
export const warmUpSeconds = 2;

/** A load run and how many requests it completed. */
export type LoadRun = LoadResult & { readonly total: number };

/** One load run as `options` say, without warm-up and without CPU time. */
export async function loadRun(options: LoadOptions): Promise<LoadRun> {
  const host = new URL(options.url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") {
    throw new Error(`load runs target loopback only, not ${host}`);
  }
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
    total: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** The `p`th percentile (0-100) of ascending `sorted`: the sample at that rank, not interpolated. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export function formatResult(label: string, r: LoadResult): string {
  const rps = Math.round(r.requestsPerSecond).toLocaleString("en-US");
  const faults = r.non2xx + r.errors === 0 ? "" : `  (non-2xx ${r.non2xx}, errors ${r.errors})`;
  const cpu = r.cpuMicrosPerRequest === undefined ? "" : `   CPU ${r.cpuMicrosPerRequest.toFixed(1)} µs/req`;
  return `${label.padEnd(44)} ${rps.padStart(8)} req/s   p50 ${String(r.p50Ms).padStart(4)} ms   p99 ${String(r.p99Ms).padStart(4)} ms${cpu}${faults}`;
}
