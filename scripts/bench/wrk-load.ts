/**
 * One load run with wrk: HTTP/1.1 keep-alive GETs from one thread over a fixed number of
 * connections for a fixed time, against a loopback URL only. wrk is written in C and costs the
 * shared cores far less per request than autocannon, so a fast server is measured nearer its own
 * ceiling. It is Debian's package, unpacked into the project's cache on first use
 * (scripts/infra/wrk.ts).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ensureWrk } from "../infra/wrk.js";
import type { LoadRun } from "./load.js";

const run = promisify(execFile);

export interface WrkOptions {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
}

/** Milliseconds from wrk's latency notation (`812.00us`, `1.35ms`, `2.01s`). */
function millis(value: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value);
  if (match === null) return Number.NaN;
  const scale = { us: 0.001, ms: 1, s: 1_000, m: 60_000 }[match[2] as "us" | "ms" | "s" | "m"];
  return Number(match[1]) * scale;
}

export async function wrkRun(options: WrkOptions): Promise<LoadRun> {
  const host = new URL(options.url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost") {
    throw new Error(`load runs target loopback only, not ${host}`);
  }
  const wrk = await ensureWrk();
  const { stdout } = await run(
    wrk.executable,
    ["-t1", `-c${options.connections}`, `-d${options.seconds}s`, "--latency", options.url],
    { timeout: (options.seconds + 30) * 1_000, env: { ...process.env, ...wrk.env } },
  );
  const total = Number(/(\d+) requests in ([\d.]+)(m?s)/.exec(stdout)?.[1]);
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const latency = (p: number): number => millis(new RegExp(`\\s${p}%\\s+(\\S+)`).exec(stdout)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  if (!Number.isFinite(total) || !Number.isFinite(rate)) throw new Error(`wrk printed no result:\n${stdout}`);
  return {
    total,
    requestsPerSecond: rate,
    p50Ms: latency(50),
    p99Ms: latency(99),
    non2xx,
    errors,
  };
}
