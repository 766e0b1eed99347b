/**
 * One measured gRPC load run over h2c with h2load (Debian package nghttp2-client): a few
 * connections multiplexing many streams, the way Envoy talks to an upstream, for a fixed time
 * after a warm-up, against a loopback URL only. Latency percentiles come from h2load's
 * per-request log. Returns undefined when h2load is not installed.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { LoadResult } from "./load.js";

const run = promisify(execFile);

export interface H2LoadOptions {
  readonly url: string;
  /** The request body: one gRPC message in its 5-byte envelope. */
  readonly body: Uint8Array;
  readonly connections?: number;
  /** Concurrent streams per connection. */
  readonly streams?: number;
  readonly seconds?: number;
}

export async function h2loadAvailable(): Promise<boolean> {
  try {
    await run("h2load", ["--version"]);
    return true;
  } catch {
    return false;
  }
}

export async function measureGrpc(options: H2LoadOptions): Promise<LoadResult> {
  const host = new URL(options.url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost") {
    throw new Error(`load runs target loopback only, not ${host}`);
  }
  const dir = await mkdtemp(join(tmpdir(), "h2load-"));
  try {
    const bodyFile = join(dir, "request.bin");
    const logFile = join(dir, "requests.log");
    await writeFile(bodyFile, options.body);
    const seconds = options.seconds ?? 8;
    const { stdout } = await run(
      "h2load",
      [
        `--clients=${options.connections ?? 4}`,
        `--max-concurrent-streams=${options.streams ?? 32}`,
        "--threads=1",
        `--duration=${seconds}`,
        "--warm-up-time=2",
        `--data=${bodyFile}`,
        "--header=content-type: application/grpc",
        "--header=te: trailers",
        `--log-file=${logFile}`,
        options.url,
      ],
      { timeout: (seconds + 30) * 1_000 },
    );
    // h2load counts the measured period only (after the warm-up), in its rate and its log.
    const rate = Number(/finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(stdout)?.[1]);
    const failed = Number(/(\d+) failed/.exec(stdout)?.[1] ?? 0);
    const non2xx = /status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(stdout);
    // Per request: start time, status, duration in microseconds (tab-separated); status 0 is a
    // request the end of the run cut off.
    const durations = (await readFile(logFile, "utf8"))
      .split("\n")
      .map((line) => line.split("\t"))
      .filter((fields) => fields[1] === "200")
      .map((fields) => Number(fields[2]) / 1_000)
      .sort((a, b) => a - b);
    const percentile = (p: number): number =>
      Math.round(durations[Math.min(durations.length - 1, Math.floor((p / 100) * durations.length))] ?? NaN);
    return {
      requestsPerSecond: rate,
      p50Ms: percentile(50),
      p99Ms: percentile(99),
      non2xx: non2xx === null ? 0 : Number(non2xx[1]) + Number(non2xx[2]) + Number(non2xx[3]),
      errors: failed,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
