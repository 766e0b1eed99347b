/**
 * The process behind `npm run cluster:up`: it starts the topology described in
 * `.cluster/options.json`, keeps it running (services that exit are restarted and reported),
 * records its state for the commands, and stops everything on SIGTERM (`npm run cluster:down`).
 * It outlives the command that started it, as the infrastructure servers do.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { startCluster, type RunningCluster } from "./cluster.js";
import {
  clusterDir,
  optionsFile,
  pidFile,
  writeState,
  type ClusterState,
  type DaemonOptions,
} from "./cluster-state.js";
import type { Incident } from "./restarting-process.js";
import { deployableServices } from "./service-catalog.js";

const log = (message: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`);
};

async function main(): Promise<void> {
  await writeFile(pidFile, `${process.pid}\n`);
  const options = JSON.parse(await readFile(optionsFile, "utf8")) as DaemonOptions;
  const incidents: Incident[] = [];
  let state: ClusterState = { status: "starting", incidents };
  await writeState(state);

  let cluster: RunningCluster | undefined;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping the topology`);
    (async () => {
      await cluster?.stop();
      await rm(pidFile, { force: true });
      await rm(`${clusterDir}/state.json`, { force: true });
    })().then(
      () => process.exit(0),
      (error: unknown) => {
        log(`stop failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));

  try {
    cluster = await startCluster({
      ...options,
      onIncident: (incident) => {
        incidents.push(incident);
        log(`INCIDENT ${incident.process} ${incident.exit}; restarting it\n${incident.tail}`);
        void writeState({ ...state, incidents });
      },
    });
  } catch (error) {
    log(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
    await writeState({
      status: "failed",
      error: error instanceof Error ? error.message : String(error),
      incidents,
    });
    await rm(pidFile, { force: true });
    process.exit(1);
  }
  const running = cluster;
  state = {
    status: "ready",
    baseUrl: running.baseUrl,
    services: Object.fromEntries(deployableServices.map((s) => [s.name, running.urlsOf(s.name)])),
    incidents,
  };
  await writeState(state);
  log(`ready: Envoy at ${running.baseUrl}`);
  // Envoy is not restarted: if it dies, say so loudly and keep the state honest.
  setInterval(() => {
    const problems = running.problems().filter((p) => p.startsWith("Envoy"));
    if (problems.length > 0 && state.status === "ready") {
      log(`INCIDENT ${problems.join("\n")}`);
      state = { ...state, status: "failed", error: problems.join("\n") };
      void writeState(state);
    }
  }, 2_000);
}

main().catch((error: unknown) => {
  log(`daemon failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
