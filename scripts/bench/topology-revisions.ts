/**
 * Two revisions of the multi-process topology side by side in one bench run: a baseline git
 * revision (exported and built by baseline-tree.ts), started by its own `startCluster`, and the
 * working tree; and which deployable a process of either one runs, to report CPU per process.
 */
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { startCluster, type ClusterOptions, type RunningCluster } from "../cluster/cluster.js";
import { deployableServices } from "../cluster/service-catalog.js";
import { prepareBaselineTree, type BaselineTree } from "./baseline-tree.js";

export type StartCluster = (options: ClusterOptions) => Promise<RunningCluster>;

export interface Revision {
  readonly label: string;
  /** Its `startCluster`, which builds and runs its own code. */
  readonly start: StartCluster;
}

/** The baseline `revision` ("before") and the working tree ("after"), in that order. */
export async function beforeAndAfter(
  revision: string,
  log: (line: string) => void,
): Promise<{ readonly baseline: BaselineTree; readonly revisions: readonly Revision[] }> {
  const baseline = prepareBaselineTree(revision, log);
  const baselineCluster = (await import(
    pathToFileURL(join(baseline.root, "scripts", "cluster", "cluster.ts")).href
  )) as { startCluster: StartCluster };
  return {
    baseline,
    revisions: [
      { label: `before (${revision})`, start: baselineCluster.startCluster },
      { label: "after (working tree)", start: startCluster },
    ],
  };
}

/** A process of the topology by what it runs: Envoy, or the deployable whose entry it started. */
export function processName(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  if (args.some((arg) => basename(arg) === "run-while-stdin-open.sh" || basename(arg) === "envoy"))
    return "Envoy";
  const service = deployableServices.find((s) => args.some((arg) => arg.endsWith(`/${s.entry}`)));
  return service?.name ?? `process ${pid}`;
}

/** `pids` grouped by what each runs (the replicas of a service together). */
export function groupByProcess(pids: readonly number[]): Map<string, number[]> {
  const named = new Map<string, number[]>();
  for (const pid of pids) {
    const name = processName(pid);
    named.set(name, [...(named.get(name) ?? []), pid]);
  }
  return named;
}

/**
 * The variables that make every service of a revision write a CPU profile into `dir`, sampled
 * every 100 µs: the one set both revisions hand their services as given. None without a `dir`.
 */
export function profiledTelemetry(dir: string | undefined): { telemetry?: Record<string, string> } {
  return dir === undefined
    ? {}
    : { telemetry: { NODE_OPTIONS: `--cpu-prof --cpu-prof-interval=100 --cpu-prof-dir=${dir}` } };
}
