/**
 * What the `cluster:up` daemon and the `cluster:up` / `cluster:down` commands share: where the
 * shared topology keeps its files, and the state file the daemon keeps current.
 *
 *   .cluster/options.json   what to start (owner-only: it holds the deployment's secrets)
 *   .cluster/state.json     starting | ready | failed, the URLs, and every incident so far
 *   .cluster/daemon.pid     the daemon's pid
 *   .cluster/cluster.log    the daemon's own log (incidents, start, stop)
 *   .cluster/logs/*.log     each process's output
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ClusterOptions } from "./cluster.js";
import type { Incident } from "./restarting-process.js";
import type { ServiceName } from "./service-catalog.js";

export const clusterDir = join(import.meta.dirname, "..", "..", ".cluster");
export const optionsFile = join(clusterDir, "options.json");
export const stateFile = join(clusterDir, "state.json");
export const pidFile = join(clusterDir, "daemon.pid");
export const daemonLog = join(clusterDir, "cluster.log");

/** What the daemon is told to start: the cluster's options without the callbacks. */
export type DaemonOptions = Omit<ClusterOptions, "onIncident">;

export interface ClusterState {
  readonly status: "starting" | "ready" | "failed";
  readonly error?: string;
  readonly baseUrl?: string;
  readonly services?: Readonly<Partial<Record<ServiceName, readonly string[]>>>;
  readonly incidents: readonly Incident[];
}

export async function readState(): Promise<ClusterState | undefined> {
  try {
    return JSON.parse(await readFile(stateFile, "utf8")) as ClusterState;
  } catch {
    return undefined;
  }
}

/** Replaces the state file in one step, so a reader never sees half of it. */
export async function writeState(state: ClusterState): Promise<void> {
  const partial = `${stateFile}.${process.pid}.partial`;
  await writeFile(partial, JSON.stringify(state, null, 2));
  await rename(partial, stateFile);
}
