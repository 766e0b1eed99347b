/**
 * What an order and a catalog read cost the processes that serve them, before and after a change,
 * side by side in one run (`npm run bench`, part 15; BENCH_ONLY=order-cost): POST /api/orders
 * through Envoy to the multi-process topology `npm run cluster:up` runs (compiled build, Kafka),
 * until the events it causes are consumed, for a baseline revision (BENCH_ORDER_BASELINE, built
 * from an export, baseline-tree.ts) and for the working tree; then GET /api/products/{id} and a
 * filtered page through the same Envoy. Each entry of BENCH_ORDER_STORES is a comparison: one
 * store for both sides (`ferretdb`) or a store per side (`<before>/<after>`), and
 * BENCH_ORDER_BROKERS names the broker the same way (deployment-infrastructure.ts holds the
 * choices). Each deployment has its own broker (and store), since both would otherwise share
 * topics and consumer groups; the two of a comparison run at once and are loaded in interleaved
 * rounds (interleaved-load.ts), each order slice followed by waiting until every consumer group
 * has caught up (kafka-quiescence.ts, asking the broker, not the platform), so that the CPU of the
 * events' consumers counts.
 *
 * The figures are CPU time per order (and per read), process by process, and orders (reads) per
 * second. Counted: Envoy, the services and the store's processes (the store's launcher and every
 * process under it, found through /proc parent links: FerretDB and, under it, a database's own
 * processes). Shown beside, not counted: the broker. Before measuring, the store's commands are
 * counted on the wire (store-command-tally.ts) over a batch of orders and listed per order, each
 * under the database of the service that sent it.
 *
 * With BENCH_ORDER_PROFILES set to a directory, every service process writes a CPU profile there
 * (sampled every 100 µs), and the bench prints where each spent its busy time while the orders
 * were measured (cpu-profile-summary.ts); the profiler's own cost is then in the figures.
 */
import { randomBytes } from "node:crypto";
import { createKafkaBus, type EventBus } from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import autocannon from "autocannon";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { benchFerretDbLookups } from "./ferretdb-lookups.js";
import { jsonOk } from "../testing/loopback-json.js";
import { summarizeCpuProfile, type ProfileWindow } from "./cpu-profile-summary.js";
import {
  brokerChoice,
  sidesOf,
  storeChoice,
  type BrokerServer,
  type StoreServer,
} from "./deployment-infrastructure.js";
import { interleaved, type Tally } from "./interleaved-load.js";
import {
  childProcesses,
  commandName,
  cpuMicros,
  descendantPids,
  processesCpu,
  treeCpuMicros,
  type CpuClock,
  type LoadRun,
} from "./load.js";
import { orderLoad, type Seeded } from "./order-bench.js";
import { untilKafkaQuiet } from "./kafka-quiescence.js";
import { registerBuyers, seedProducts } from "./seeding.js";
import { countsBetween, startStoreCommandTally, type StoreCommandTally } from "./store-command-tally.js";
import { beforeAndAfter, groupByProcess, profiledTelemetry, type Revision } from "./topology-revisions.js";

export interface OrderCostOptions {
  readonly scratch: string;
  /** The revision measured as "before". */
  readonly baseline: string;
  /**
   * The comparisons, in turn: each a store for both sides (`embedded`, `ferretdb`) or one per
   * side (`<before>/<after>`), by the names of deployment-infrastructure.ts.
   */
  readonly stores: readonly string[];
  /** The broker of both sides, or `<before>/<after>`. */
  readonly brokers: string;
  readonly connections: number;
  /** Connections of the catalog reads. */
  readonly readConnections: number;
  /** One slice's length in seconds. */
  readonly seconds: number;
  readonly rounds: number;
  readonly admin: { readonly email: string; readonly password: string };
  /** Where CPU profiles go; none: not profiled. */
  readonly profileDir?: string | undefined;
}

/** The two catalog reads a shop front makes most, of one deployment. */
interface CatalogReads {
  /** GET /api/products/{id}, each request the next seeded product. */
  readonly byId: (connections: number, seconds: number) => Promise<LoadRun>;
  /** GET /api/products?category=…&brand=…&size=20. */
  readonly filtered: (connections: number, seconds: number) => Promise<LoadRun>;
}

/** A deployment of one revision on one store and broker, seeded and warmed up. */
interface Deployed {
  readonly label: string;
  readonly baseUrl: string;
  /** Resolves once the deployment's consumers have caught up with its events. */
  readonly quiet: () => Promise<void>;
  readonly seeded: Seeded;
  readonly reads: CatalogReads;
  /** The counted processes: Envoy, the services and the store's. */
  readonly cpuTime: CpuClock;
  readonly parts: ReadonlyMap<string, CpuClock>;
  /** Each service process's pid by what it runs, to find its profile. */
  readonly pids: ReadonlyMap<string, readonly number[]>;
  /** The store's commands on the wire; none on embedded stores. */
  readonly tally: StoreCommandTally | undefined;
  stop(): Promise<void>;
}

/** Products the orders spread over, and the customers placing them. */
const products = 200;
const buyers = 16;
/** Orders placed before measuring, so that JIT compilation and first connections count against none. */
const warmUpSeconds = 4;
/** Orders placed while the store's commands are counted, all of them answered. */
const talliedOrders = 100;

const secret = (bytes: number): string => randomBytes(bytes).toString("base64url");

/** The consumer groups of the services deployed: an order is done when each has caught up. */
const consumerGroups = ["notification-service", "product-service", "order-service", "user-service"];
// Errors only: KafkaJS warns while a topic it just created gets its leader, and retries.
const logger = createLogger("error", "order-cost-bench");

/** A part shown beside the processes that serve an order, not counted in their total. */
const uncounted = (name: string): string => `(${name})`;
const isUncounted = (name: string): boolean => name.startsWith("(");

/** The store's clocks: the launcher's own CPU, and each kind of process under it (a database's). */
function storeParts(store: StoreServer, title: string): Map<string, CpuClock> {
  const parts = new Map<string, CpuClock>([[title, () => cpuMicros(store.pid)]]);
  const kinds = new Set(descendantPids(store.pid).map(commandName));
  if (kinds.size > 0) {
    // Everything under the launcher, running or ended (treeCpuMicros counts reaped children).
    parts.set(`${[...kinds].join("+")} under it`, () => treeCpuMicros(store.pid) - cpuMicros(store.pid));
  }
  return parts;
}

/** Loads `paths` in turn (each request the next one) through `baseUrl`. */
async function readLoad(
  baseUrl: string,
  paths: readonly string[],
  connections: number,
  seconds: number,
): Promise<LoadRun> {
  let turn = 0;
  const result = await autocannon({
    url: new URL(paths[0] ?? "/", baseUrl).toString(),
    connections,
    duration: seconds,
    requests: [
      {
        method: "GET",
        setupRequest: (request) => {
          turn += 1;
          return { ...request, path: paths[turn % paths.length] ?? "/" };
        },
      },
    ],
  });
  return {
    total: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** The catalog reads over the products `seeded`, which are all of one category and brand. */
async function catalogReads(baseUrl: string, productIds: readonly string[]): Promise<CatalogReads> {
  const [category] = (await jsonOk(baseUrl, "GET", "/api/categories")) as { name: string }[];
  if (category === undefined) throw new Error("the platform has no categories");
  const filtered = `/api/products?category=${encodeURIComponent(category.name)}&brand=Bench&size=20`;
  const page = (await jsonOk(baseUrl, "GET", filtered)) as { content: unknown[] };
  if (page.content.length !== 20) throw new Error(`the filtered page holds ${page.content.length} products`);
  const byIdPaths = productIds.map((id) => `/api/products/${id}`);
  return {
    byId: (connections, seconds) => readLoad(baseUrl, byIdPaths, connections, seconds),
    filtered: (connections, seconds) => readLoad(baseUrl, [filtered], connections, seconds),
  };
}

async function deploy(
  revision: Revision,
  run: string,
  infrastructure: { readonly store: string; readonly broker: string },
  options: OrderCostOptions,
  profileDir: string | undefined,
): Promise<Deployed> {
  const dir = (name: string): string => join(options.scratch, `order-cost-${run}-${name}`);
  const storeTitle = storeChoice(infrastructure.store).title;
  const brokerTitle = brokerChoice(infrastructure.broker).title;
  const servers: { stop(): Promise<void> }[] = [];
  const stopServers = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  let broker: BrokerServer;
  let store: StoreServer | undefined;
  let tally: StoreCommandTally | undefined;
  try {
    broker = await brokerChoice(infrastructure.broker).start(dir("broker"));
    servers.push(broker);
    store = await storeChoice(infrastructure.store).start(dir("store"));
    if (store !== undefined) servers.push(store);
    if (store !== undefined) {
      tally = await startStoreCommandTally(store.url);
      servers.push(tally);
    }
  } catch (error) {
    await stopServers();
    throw error;
  }
  const before = new Set(childProcesses());
  let cluster;
  try {
    cluster = await revision.start({
      stateDir: dir("cluster"),
      mongodbUrl: tally?.url,
      kafkaBrokers: broker.brokers,
      jwtSecret: secret(64),
      edgeSecret: secret(32),
      peerSecret: secret(32),
      settings: { ADMIN_EMAIL: options.admin.email, ADMIN_PASSWORD: options.admin.password },
      services: ["auth", "user", "product", "order", "notification"],
      logLevel: "warn",
      ...profiledTelemetry(profileDir),
    });
  } catch (error) {
    await stopServers();
    throw error;
  }
  const running = cluster;
  let bus: EventBus | undefined;
  const stop = async (): Promise<void> => {
    await bus?.close();
    await running.stop();
    await stopServers();
  };
  try {
    const started = childProcesses().filter((pid) => !before.has(pid));
    // The broker and the store were started before; a process the cluster started that is
    // neither Envoy nor a service (a launcher's shell) is counted under its pid.
    const named = groupByProcess(started);
    const watcher = await createKafkaBus({
      brokers: broker.brokers.split(","),
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
    const reads = await catalogReads(running.baseUrl, seeded.productIds);
    await orderLoad(running.baseUrl, seeded, options.connections, warmUpSeconds);
    await quiet();
    const parts = new Map([...named].map(([name, pids]) => [name, processesCpu(pids)]));
    const counted = [processesCpu(started)];
    if (store !== undefined) {
      for (const [name, clock] of storeParts(store, storeTitle)) parts.set(name, clock);
      counted.push(processesCpu([store.pid]));
    }
    // Beside them, not counted in the total: what the broker spent.
    parts.set(uncounted(brokerTitle), processesCpu([broker.pid]));
    return {
      label: `${revision.label} on ${storeTitle}, ${brokerTitle}`,
      baseUrl: running.baseUrl,
      quiet,
      seeded,
      reads,
      cpuTime: () => counted.reduce((total, clock) => total + clock(), 0),
      parts,
      pids: named,
      tally,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1_000n);

function tallyLine(label: string, tally: Tally, unit: string): string[] {
  const list = (parts: (readonly [string, number])[]): string =>
    parts
      .sort(([a], [b]) => (a === "Envoy" ? -1 : b === "Envoy" ? 1 : a.localeCompare(b)))
      .map(([part, micros]) => `${part.replace(/^\((.*)\)$/, "$1")} ${micros.toFixed(0)}`)
      .join(", ");
  const all = [...tally.cpuMicrosByPart];
  const parts = `${list(all.filter(([part]) => !isUncounted(part)))}; not counted: ${list(all.filter(([part]) => isUncounted(part)))}`;
  const faults = tally.faults === 0 ? "" : `   (${tally.faults} non-2xx or errors)`;
  if (tally.requests === 0) return [`  ${label}`, `    none answered within a slice${faults}`];
  return [
    `  ${label}`,
    `    ${tally.requestsPerSecond.toFixed(1).padStart(8)} ${unit}s/s   CPU ${tally.cpuMicrosPerRequest.toFixed(0).padStart(6)} µs/${unit}   p99 ${tally.p99Ms} ms${faults}`,
    `    by process, µs/${unit}: ${parts}`,
  ];
}

/** How many times the "after" side does what the "before" side does per second. */
function ratioLine(what: string, [before, after]: readonly Tally[]): string {
  if (before === undefined || after === undefined || before.requests === 0 || after.requests === 0)
    return "    after/before: no ratio (a side answered none)";
  const ratio = after.requestsPerSecond / before.requestsPerSecond;
  return `    after/before: ${ratio.toFixed(1)}× the ${what} per second, ${(after.cpuMicrosPerRequest / 1000).toFixed(1)} ms of CPU per ${what} against ${(before.cpuMicrosPerRequest / 1000).toFixed(1)} ms`;
}

/**
 * The store commands `deployed` sends per order, counted on the wire over `talliedOrders` orders
 * and until their events were consumed: one line per command, the most frequent first. What
 * runs on a timer (heartbeats, polls) counts too, spread over the orders of that window.
 */
async function storeCommandsPerOrder(deployed: Deployed, connections: number): Promise<string[]> {
  const tally = deployed.tally;
  if (tally === undefined) return [];
  const before = tally.counts();
  const run = await orderLoad(deployed.baseUrl, deployed.seeded, connections, { orders: talliedOrders });
  await deployed.quiet();
  const counts = [...countsBetween(before, tally.counts())].sort(
    ([a, x], [b, y]) => y - x || a.localeCompare(b),
  );
  const total = counts.reduce((sum, [, count]) => sum + count, 0);
  const shown = counts.filter(([, count]) => count / run.total >= 0.05);
  return [
    `  ${deployed.label}: ${(total / run.total).toFixed(1)} store commands per order (${run.total} orders; those of 0.05 per order or more)`,
    ...shown.map(([key, count]) => `    ${(count / run.total).toFixed(2).padStart(6)}  ${key}`),
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

/** Interleaved rounds of one kind of load over every deployment. */
function interleavedOver(
  deployed: readonly Deployed[],
  slice: (d: Deployed) => Promise<LoadRun>,
  settle: (d: Deployed) => Promise<void>,
  options: OrderCostOptions,
): Promise<Tally[]> {
  return interleaved(
    deployed.map((d) => ({
      slice: () => slice(d),
      cpuTime: d.cpuTime,
      parts: d.parts,
      settle: () => settle(d),
    })),
    options.rounds,
    options.seconds,
  );
}

async function benchComparison(
  stores: string,
  revisions: readonly Revision[],
  options: OrderCostOptions,
  log: (line: string) => void,
): Promise<string[]> {
  const sides = sidesOf(stores, options.brokers);
  const deployed: Deployed[] = [];
  const profileDirs: (string | undefined)[] = [];
  const run = stores.replace("/", "-");
  const lines: string[] = [];
  let orders: Tally[];
  let window: ProfileWindow;
  let byId: Tally[];
  let filtered: Tally[];
  try {
    for (const [index, revision] of revisions.entries()) {
      const profileDir =
        options.profileDir === undefined ? undefined : join(options.profileDir, `${run}-${index}`);
      if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
      profileDirs.push(profileDir);
      const infrastructure = index === 0 ? sides.before : sides.after;
      log(`starting the topology of ${revision.label} on ${infrastructure.store}, ${infrastructure.broker}`);
      deployed.push(await deploy(revision, `${run}-${index}`, infrastructure, options, profileDir));
    }
    for (const d of deployed) lines.push(...(await storeCommandsPerOrder(d, options.connections)));
    const { connections, readConnections, seconds } = options;
    const fromMicros = monotonicMicros();
    orders = await interleavedOver(
      deployed,
      (d) => orderLoad(d.baseUrl, d.seeded, connections, seconds),
      (d) => d.quiet(),
      options,
    );
    window = { fromMicros, toMicros: monotonicMicros() };
    const settled = (): Promise<void> => Promise.resolve();
    for (const d of deployed) await d.reads.byId(readConnections, 1);
    byId = await interleavedOver(deployed, (d) => d.reads.byId(readConnections, seconds), settled, options);
    for (const d of deployed) await d.reads.filtered(readConnections, 1);
    filtered = await interleavedOver(
      deployed,
      (d) => d.reads.filtered(readConnections, seconds),
      settled,
      options,
    );
  } finally {
    // Profiles are written as the processes exit.
    for (const d of deployed) await d.stop();
  }
  const result = [
    `POST /api/orders through Envoy (one worker) → auth, user, product, order, notification, ${options.connections} connections; CPU until its events are consumed, the store counted`,
    ...deployed.flatMap((d, i) => tallyLine(d.label, orders[i] as Tally, "order")),
    ratioLine("order", orders),
    `GET /api/products/{id} through Envoy, ${options.readConnections} connections, each request the next of ${products} products`,
    ...deployed.flatMap((d, i) => tallyLine(d.label, byId[i] as Tally, "read")),
    ratioLine("read", byId),
    `GET /api/products?category&brand&size=20 through Envoy, ${options.readConnections} connections`,
    ...deployed.flatMap((d, i) => tallyLine(d.label, filtered[i] as Tally, "read")),
    ratioLine("read", filtered),
    "The store's commands per order, counted on the wire",
    ...lines,
  ];
  for (const [index, d] of deployed.entries()) {
    const dir = profileDirs[index];
    if (dir !== undefined)
      result.push(...profileLines(dir, d, window, orders[index]?.requests ?? Number.NaN));
  }
  return result;
}

export async function benchOrderCost(options: OrderCostOptions): Promise<string[]> {
  const log = (line: string): void => {
    process.stderr.write(`order-cost bench: ${line}\n`);
  };
  const { baseline, revisions } = await beforeAndAfter(options.baseline, log);
  const lines = [
    `an order and a catalog read through the topology: before ${options.baseline} (${baseline.commit.slice(0, 12)})${baseline.ownDependencies ? ", on its own dependencies (its lockfile differs)" : ""}; after: the working tree; ${options.rounds} interleaved rounds of ${options.seconds} s`,
  ];
  for (const stores of options.stores)
    lines.push(...(await benchComparison(stores, revisions, options, log)));
  // What the store itself spends on a read by id as the collections grow, on either backend.
  if (options.stores.some((stores) => stores.split("/").some((name) => name.startsWith("ferretdb"))))
    lines.push(...(await benchFerretDbLookups(options.scratch)));
  lines.push(
    "  targets: at most 1,500 µs of CPU per order in all processes on embedded stores; on a store server at most 20 ms per order in all processes, the store counted, and at least 3× the orders per second of FerretDB on SQLite; the catalog read by id and the filtered page at least 10× the reads per second of before",
  );
  return lines;
}
