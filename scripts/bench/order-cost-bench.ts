/**
 * What an order costs the processes that serve it, before and after a change, side by side in one
 * run (`npm run bench`, part 15; BENCH_ONLY=order-cost): POST /api/orders through Envoy to the
 * multi-process topology `npm run cluster:up` runs (compiled build, Kafka), until the events it
 * causes are consumed, for a baseline revision (BENCH_ORDER_BASELINE, built from an export,
 * baseline-tree.ts) and for the working tree. Once on embedded stores and once on FerretDB
 * (BENCH_ORDER_STORES). Each deployment has its own Kafka (and FerretDB), since both would
 * otherwise share topics and consumer groups; the two of a store run at once and are loaded in
 * interleaved rounds (interleaved-load.ts), each slice followed by waiting until every consumer
 * group has caught up (kafka-quiescence.ts, asking the broker, not the platform), so that the CPU
 * of the events' consumers counts. The figures are CPU time per
 * order, process by process (Envoy and the services; the stores and Kafka not counted), and
 * orders per second.
 *
 * With BENCH_ORDER_PROFILES set to a directory, every service process writes a CPU profile there
 * (sampled every 100 µs), and the bench prints where each spent its busy time while the orders
 * were measured (cpu-profile-summary.ts); the profiler's own cost is then in the figures.
 */
import { randomBytes } from "node:crypto";
import { createKafkaBus, type EventBus } from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startFerretDb } from "../infra/ferretdb.js";
import { benchFerretDbLookups } from "./ferretdb-lookups.js";
import { startKafka } from "../infra/kafka.js";
import { jsonOk } from "../testing/loopback-json.js";
import { summarizeCpuProfile, type ProfileWindow } from "./cpu-profile-summary.js";
import { interleaved, type Tally } from "./interleaved-load.js";
import { childProcesses, processesCpu, type CpuClock } from "./load.js";
import { orderLoad, type Seeded } from "./order-bench.js";
import { untilKafkaQuiet } from "./kafka-quiescence.js";
import { registerBuyers, seedProducts } from "./seeding.js";
import { beforeAndAfter, groupByProcess, profiledTelemetry, type Revision } from "./topology-revisions.js";

export interface OrderCostOptions {
  readonly scratch: string;
  /** The revision measured as "before". */
  readonly baseline: string;
  /** `embedded`, `ferretdb`: the stores the topology is measured on, in turn. */
  readonly stores: readonly string[];
  readonly connections: number;
  /** One slice's length in seconds. */
  readonly seconds: number;
  readonly rounds: number;
  readonly admin: { readonly email: string; readonly password: string };
  /** Where CPU profiles go; none: not profiled. */
  readonly profileDir?: string | undefined;
}

/** A deployment of one revision on one store, seeded and warmed up. */
interface Deployed {
  readonly label: string;
  readonly baseUrl: string;
  /** Resolves once the deployment's consumers have caught up with its events. */
  readonly quiet: () => Promise<void>;
  readonly seeded: Seeded;
  readonly cpuTime: CpuClock;
  readonly parts: ReadonlyMap<string, CpuClock>;
  /** Each service process's pid by what it runs, to find its profile. */
  readonly pids: ReadonlyMap<string, readonly number[]>;
  stop(): Promise<void>;
}

/** Products the orders spread over, and the customers placing them. */
const products = 200;
const buyers = 16;
/** Orders placed before measuring, so that JIT compilation and first connections count against none. */
const warmUpSeconds = 4;

const secret = (bytes: number): string => randomBytes(bytes).toString("base64url");

/** The consumer groups of the services deployed: an order is done when each has caught up. */
const consumerGroups = ["notification-service", "product-service", "order-service", "user-service"];
// Errors only: KafkaJS warns while a topic it just created gets its leader, and retries.
const logger = createLogger("error", "order-cost-bench");

/** A part shown beside the processes that serve an order, not counted in their total. */
const uncounted = (name: string): string => `(${name})`;
const isUncounted = (name: string): boolean => name.startsWith("(");

async function deploy(
  revision: Revision,
  run: string,
  store: string,
  options: OrderCostOptions,
  profileDir: string | undefined,
): Promise<Deployed> {
  const dir = (name: string): string => join(options.scratch, `order-cost-${run}-${name}`);
  const quiet = { log: () => undefined };
  const kafka = await startKafka({ dataDir: dir("kafka"), ...quiet });
  const ferret =
    store === "ferretdb" ? await startFerretDb({ dataDir: dir("ferretdb"), ...quiet }) : undefined;
  const stopStores = async (): Promise<void> => {
    await Promise.all([kafka.stop(), ferret?.stop()]);
  };
  const before = new Set(childProcesses());
  let cluster;
  try {
    cluster = await revision.start({
      stateDir: dir("cluster"),
      mongodbUrl: ferret?.url,
      kafkaBrokers: kafka.brokers,
      jwtSecret: secret(64),
      edgeSecret: secret(32),
      peerSecret: secret(32),
      settings: { ADMIN_EMAIL: options.admin.email, ADMIN_PASSWORD: options.admin.password },
      services: ["auth", "user", "product", "order", "notification"],
      logLevel: "warn",
      ...profiledTelemetry(profileDir),
    });
  } catch (error) {
    await stopStores();
    throw error;
  }
  const running = cluster;
  let bus: EventBus | undefined;
  const stop = async (): Promise<void> => {
    await bus?.close();
    await running.stop();
    await stopStores();
  };
  try {
    const started = childProcesses().filter((pid) => !before.has(pid));
    // Kafka and FerretDB were started before; a process the cluster started that is neither
    // Envoy nor a service (a launcher's shell) is counted under its pid.
    const named = groupByProcess(started);
    const watcher = await createKafkaBus({
      brokers: kafka.brokers.split(","),
      clientId: "order-cost-bench",
      logger,
    });
    bus = watcher;
    const quiet = (): Promise<void> => untilKafkaQuiet(watcher, { groups: consumerGroups });
    const { token: adminToken } = (await jsonOk(
      running.baseUrl,
      "POST",
      "/api/auth/login",
      undefined,
      options.admin,
    )) as {
      token: string;
    };
    const seeded: Seeded = {
      productIds: await seedProducts(running.baseUrl, adminToken, products, 1_000_000),
      tokens: await registerBuyers(running.baseUrl, buyers),
    };
    await orderLoad(running.baseUrl, seeded, options.connections, warmUpSeconds);
    await quiet();
    // Beside them, not counted in the total: what the stores and the broker spent.
    named.set(uncounted("Kafka"), [kafka.pid]);
    if (ferret !== undefined) named.set(uncounted("FerretDB"), [ferret.pid]);
    return {
      label: revision.label,
      baseUrl: running.baseUrl,
      quiet,
      seeded,
      cpuTime: processesCpu(started),
      parts: new Map([...named].map(([name, pids]) => [name, processesCpu(pids)])),
      pids: named,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1_000n);

function tallyLine(label: string, tally: Tally): string[] {
  const list = (parts: (readonly [string, number])[]): string =>
    parts
      .sort(([a], [b]) => (a === "Envoy" ? -1 : b === "Envoy" ? 1 : a.localeCompare(b)))
      .map(([part, micros]) => `${part.replace(/^\((.*)\)$/, "$1")} ${micros.toFixed(0)}`)
      .join(", ");
  const all = [...tally.cpuMicrosByPart];
  const parts = `${list(all.filter(([part]) => !isUncounted(part)))}; not counted: ${list(all.filter(([part]) => isUncounted(part)))}`;
  const faults = tally.faults === 0 ? "" : `   (${tally.faults} non-2xx or errors)`;
  return [
    `  ${label.padEnd(22)} ${tally.requestsPerSecond.toFixed(1).padStart(7)} orders/s   CPU ${tally.cpuMicrosPerRequest.toFixed(0).padStart(6)} µs/order   p99 ${tally.p99Ms} ms${faults}`,
    `    by process, µs/order: ${parts}`,
  ];
}

/** Where each service process of `deployed` spent its busy time within `window`, per order. */
function profileLines(dir: string, deployed: Deployed, window: ProfileWindow, orders: number): string[] {
  const files = readdirSync(dir);
  const lines: string[] = [];
  for (const [name, pids] of deployed.pids) {
    if (isUncounted(name)) continue;
    for (const pid of pids) {
      const file = files.find((f) => Number(/^CPU\.\d+\.\d+\.(\d+)\./.exec(f)?.[1]) === pid);
      if (file === undefined) continue;
      const summary = summarizeCpuProfile(join(dir, file), window, 8);
      const perOrder = (micros: number): string => (micros / orders).toFixed(0);
      lines.push(
        `  ${deployed.label}, ${name}: ${perOrder(summary.busyMicros)} µs/order sampled busy`,
        `    by place: ${summary.byPlace.map(([place, us]) => `${place} ${perOrder(us)}`).join(", ")}`,
        ...summary.byFunction.map(([fn, us]) => `      ${perOrder(us).padStart(6)}  ${fn}`),
      );
    }
  }
  return lines;
}

async function benchStore(
  store: string,
  revisions: readonly Revision[],
  options: OrderCostOptions,
  log: (line: string) => void,
): Promise<string[]> {
  const deployed: Deployed[] = [];
  const profileDirs: (string | undefined)[] = [];
  let tallies: Tally[];
  let window: ProfileWindow;
  try {
    for (const [index, revision] of revisions.entries()) {
      const profileDir =
        options.profileDir === undefined ? undefined : join(options.profileDir, `${store}-${index}`);
      if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
      profileDirs.push(profileDir);
      log(`starting the topology of ${revision.label} on ${store} stores`);
      deployed.push(await deploy(revision, `${store}-${index}`, store, options, profileDir));
    }
    const { connections, seconds } = options;
    const fromMicros = monotonicMicros();
    tallies = await interleaved(
      deployed.map((d) => ({
        slice: () => orderLoad(d.baseUrl, d.seeded, connections, seconds),
        cpuTime: d.cpuTime,
        parts: d.parts,
        settle: d.quiet,
      })),
      options.rounds,
      seconds,
    );
    window = { fromMicros, toMicros: monotonicMicros() };
  } finally {
    // Profiles are written as the processes exit.
    for (const d of deployed) await d.stop();
  }
  const lines = [
    `POST /api/orders through Envoy (one worker) → auth, user, product, order, notification, on ${store} stores and Kafka, ${options.connections} connections; CPU until its events are consumed`,
    ...deployed.flatMap((d, i) => tallyLine(d.label, tallies[i] as Tally)),
  ];
  for (const [index, d] of deployed.entries()) {
    const dir = profileDirs[index];
    if (dir !== undefined)
      lines.push(...profileLines(dir, d, window, tallies[index]?.requests ?? Number.NaN));
  }
  return lines;
}

export async function benchOrderCost(options: OrderCostOptions): Promise<string[]> {
  const log = (line: string): void => {
    process.stderr.write(`order-cost bench: ${line}\n`);
  };
  const { baseline, revisions } = await beforeAndAfter(options.baseline, log);
  const lines = [
    `an order through the topology: before ${options.baseline} (${baseline.commit.slice(0, 12)})${baseline.ownDependencies ? ", on its own dependencies (its lockfile differs)" : ""}; after: the working tree; ${options.rounds} interleaved rounds of ${options.seconds} s`,
  ];
  for (const store of options.stores) lines.push(...(await benchStore(store, revisions, options, log)));
  // What holds the FerretDB figures back: its reads by id, as the collections grow.
  if (options.stores.includes("ferretdb")) lines.push(...(await benchFerretDbLookups(options.scratch)));
  lines.push(
    "  targets: at most 1,500 µs of CPU per order in all processes on embedded stores, 10 ms on FerretDB; on FerretDB at least 5× the orders per second of before",
  );
  return lines;
}
