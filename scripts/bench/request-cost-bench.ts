/**
 * What one request costs the processes that serve it, before and after a change, side by side in
 * one run (`npm run bench`, part 13; BENCH_ONLY=request-cost): the catalog read
 * (`GET /api/products/{id}`) through Envoy to the Product service's own process, the topology
 * `npm run cluster:up` runs (compiled build, embedded stores, Kafka), for a baseline revision
 * (BENCH_REQUEST_BASELINE, built from an export, baseline-tree.ts) and for the working tree.
 * Both deployments run at once and are loaded in interleaved rounds (interleaved-load.ts), so
 * that the machine's swings fall on both; the figure is CPU time per request, process by
 * process (Envoy, Product), read from /proc.
 *
 * With BENCH_REQUEST_PROFILES set to a directory, every service process also writes a CPU
 * profile there (sampled every 100 µs), and the bench prints where the Product process spent
 * its busy time while the reads were measured (cpu-profile-summary.ts); the profiler's own cost
 * is then in the figures.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startKafka } from "../infra/kafka.js";
import { summarizeCpuProfile, type ProfileWindow } from "./cpu-profile-summary.js";
import { createProductAtService } from "./service-product.js";
import { interleaved, type Tally } from "./interleaved-load.js";
import { childProcesses, loadRun, processesCpu, warmUpSeconds, type CpuClock } from "./load.js";
import { beforeAndAfter, groupByProcess, profiledTelemetry, type Revision } from "./topology-revisions.js";

export interface RequestCostOptions {
  readonly scratch: string;
  /** The revision measured as "before". */
  readonly baseline: string;
  readonly connections: number;
  /** One slice's length in seconds. */
  readonly seconds: number;
  readonly rounds: number;
  /** Where CPU profiles go; none: not profiled. */
  readonly profileDir?: string | undefined;
}

/** A deployment of one revision, seeded: what the rounds load and whose CPU they read. */
interface Deployed {
  readonly label: string;
  readonly readUrl: string;
  readonly cpuTime: CpuClock;
  readonly parts: ReadonlyMap<string, CpuClock>;
  /** The Product process's pid, to find its profile. */
  readonly productPid: number | undefined;
  stop(): Promise<void>;
}

const secret = (bytes: number): string => randomBytes(bytes).toString("base64url");

async function deploy(
  revision: Revision,
  index: number,
  options: RequestCostOptions,
  kafkaBrokers: string,
): Promise<Deployed> {
  const secrets = { jwtSecret: secret(64), edgeSecret: secret(32), peerSecret: secret(32) };
  const profileDir = options.profileDir === undefined ? undefined : join(options.profileDir, `${index}`);
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  const before = new Set(childProcesses());
  const cluster = await revision.start({
    stateDir: join(options.scratch, `request-cost-${index}`),
    kafkaBrokers,
    ...secrets,
    services: ["product", "order"],
    logLevel: "warn",
    ...profiledTelemetry(profileDir),
  });
  try {
    const started = childProcesses().filter((pid) => !before.has(pid));
    const named = groupByProcess(started);
    const productUrl = cluster.urlsOf("product")[0] ?? "";
    const productId = await createProductAtService(productUrl, secrets.edgeSecret, "Request cost product");
    const readUrl = `${cluster.baseUrl}/api/products/${productId}`;
    const answer = await fetch(readUrl);
    if (answer.status !== 200) throw new Error(`${readUrl} answered ${answer.status}`);
    await loadRun({ url: readUrl, connections: options.connections, seconds: warmUpSeconds });
    return {
      label: revision.label,
      readUrl,
      cpuTime: processesCpu(started),
      parts: new Map([...named].map(([name, pids]) => [name, processesCpu(pids)])),
      productPid: named.get("product")?.[0],
      stop: () => cluster.stop(),
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1_000n);

function tallyLine(label: string, tally: Tally): string {
  const parts = [...tally.cpuMicrosByPart]
    .sort(([a], [b]) => (a === "Envoy" ? -1 : b === "Envoy" ? 1 : a.localeCompare(b)))
    .map(([part, micros]) => `${part} ${micros.toFixed(1)}`)
    .join(", ");
  const faults = tally.faults === 0 ? "" : `   (${tally.faults} non-2xx or errors)`;
  return `  ${label.padEnd(28)} ${Math.round(tally.requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s   CPU µs/req: ${parts}${faults}`;
}

/** Where the Product process of deployment `index` spent its busy time within `window`. */
function profileLines(dir: string, deployed: Deployed, window: ProfileWindow, requests: number): string[] {
  const file = readdirSync(dir).find(
    (f) => Number(/^CPU\.\d+\.\d+\.(\d+)\./.exec(f)?.[1]) === deployed.productPid,
  );
  if (file === undefined) return [`  ${deployed.label}: no profile of the Product process in ${dir}`];
  const summary = summarizeCpuProfile(join(dir, file), window, 12);
  const perRequest = (micros: number): string => (micros / requests).toFixed(1);
  return [
    `  ${deployed.label}, Product process: ${perRequest(summary.busyMicros)} µs/req sampled busy`,
    `    by place: ${summary.byPlace.map(([place, us]) => `${place} ${perRequest(us)}`).join(", ")}`,
    "    by function:",
    ...summary.byFunction.map(([fn, us]) => `      ${perRequest(us).padStart(6)}  ${fn}`),
  ];
}

export async function benchRequestCost(options: RequestCostOptions): Promise<string[]> {
  const log = (line: string): void => {
    process.stderr.write(`request-cost bench: ${line}\n`);
  };
  const { baseline, revisions } = await beforeAndAfter(options.baseline, log);
  const kafka = await startKafka({
    dataDir: join(options.scratch, "request-cost-kafka"),
    log: () => undefined,
  });
  const deployed: Deployed[] = [];
  let tallies: Tally[];
  let window: ProfileWindow;
  try {
    for (const [index, revision] of revisions.entries()) {
      log(`starting the topology of ${revision.label}`);
      deployed.push(await deploy(revision, index, options, kafka.brokers));
    }
    const { connections, seconds } = options;
    const fromMicros = monotonicMicros();
    tallies = await interleaved(
      deployed.map((d) => ({
        slice: () => loadRun({ url: d.readUrl, connections, seconds }),
        cpuTime: d.cpuTime,
        parts: d.parts,
        settle: () => Promise.resolve(),
      })),
      options.rounds,
      seconds,
    );
    window = { fromMicros, toMicros: monotonicMicros() };
  } finally {
    // Profiles are written as the processes exit.
    for (const d of deployed) await d.stop();
    await kafka.stop();
  }
  const lines = [
    `catalog read GET /api/products/{id} through Envoy (one worker) → the Product process, ${options.connections} connections`,
    `  before: ${options.baseline} (${baseline.commit.slice(0, 12)})${baseline.ownDependencies ? ", on its own dependencies (its lockfile differs)" : ""}; after: the working tree; ${options.rounds} interleaved rounds of ${options.seconds} s`,
    ...deployed.map((d, i) => tallyLine(d.label, tallies[i] as Tally)),
    "  target: the Product process at most 50 µs per read",
  ];
  if (options.profileDir !== undefined) {
    lines.push("  where the Product process spent its time while measured (CPU profiles), µs per read:");
    for (const [index, d] of deployed.entries()) {
      const requests = tallies[index]?.requests ?? Number.NaN;
      lines.push(...profileLines(join(options.profileDir, `${index}`), d, window, requests));
    }
  }
  return lines;
}
