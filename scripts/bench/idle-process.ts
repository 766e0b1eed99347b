/**
 * Waiting for a store to finish the background work a seeding left it (ClickHouse merging the
 * parts of many inserts, in its server or in the process that holds chDB), seen from outside
 * as the CPU time of its process, from /proc (Linux), so that a measurement that follows is not
 * competing with it. The bench reads no table of the store to find out.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { cpuMicros } from "./load.js";

/**
 * Milliseconds until every process of `pids` used less than `share` of one core over a window
 * of `windowMs`, or undefined when that did not happen within `timeoutMs`.
 */
export async function untilIdle(
  pids: readonly number[],
  timeoutMs: number,
  share = 0.05,
  windowMs = 1_000,
): Promise<number | undefined> {
  const started = performance.now();
  for (;;) {
    const before = pids.map(cpuMicros);
    await delay(windowMs);
    const busiest = Math.max(...pids.map((pid, i) => cpuMicros(pid) - (before[i] ?? 0)));
    const waited = performance.now() - started;
    if (busiest < share * windowMs * 1_000) return waited;
    if (waited > timeoutMs) return undefined;
  }
}

/** The first child of process `parent` whose command line contains `name`. */
export function childPidOf(parent: number, name: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // After "pid (comm) ": the state, then the parent's pid.
      const parentPid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parentPid === parent && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(name)) {
        return Number(entry);
      }
    } catch {
      // The process exited while we looked.
    }
  }
  return undefined;
}
