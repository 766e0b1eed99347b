/**
 * What the topology costs at rest (`npm run bench`, part 13; BENCH_ONLY=idle): the CPU time of
 * every process of the multi-process topology on FerretDB, Kafka and ClickHouse (the services,
 * Envoy, the stream processor, the site, and the three servers) over BENCH_IDLE_SECONDS
 * (default 300: the longest pause of the background work at rest, its safety passes, so every
 * periodic pass falls in a window as often as it runs) in which nobody sends a request, as a
 * share of one core. Twice: with the data a
 * short seeding leaves, and with BENCH_IDLE_DOCUMENTS more documents (default 5,000) in each
 * collection that grows with a shop's life (accounts, profiles, products, stock entries,
 * reservations, orders, notifications), so that work that grows with the data shows. And for
 * two revisions side by side in one run: BENCH_IDLE_BASELINE (default `ca8dea2`, the main
 * before the idle work, built from an export, baseline-tree.ts) before, the working tree after,
 * on the same servers and data.
 *
 * With BENCH_IDLE_PROFILES set to a directory, every Node process also writes a CPU profile
 * there (sampled every 5 ms), and the bench prints where each spent its busy time during the
 * measured windows (cpu-profile-summary.ts); the profiler's own cost is then in the figures.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { MongoClient, type Document } from "mongodb";
import { deployableServices } from "../cluster/service-catalog.js";
import { startClickHouse } from "../infra/clickhouse.js";
import { startFerretDb } from "../infra/ferretdb.js";
import { startKafka } from "../infra/kafka.js";
import { jsonOk } from "../testing/loopback-json.js";
import { summarizeCpuProfile, type ProfileWindow } from "./cpu-profile-summary.js";
import { childProcesses, treeCpuMicros } from "./load.js";
import { untilQuiet } from "./quiescence.js";
import { registerBuyers, seedProducts } from "./seeding.js";
import { beforeAndAfter, processName } from "./topology-revisions.js";

export interface IdleBenchOptions {
  readonly scratch: string;
  /** The revision measured as "before". */
  readonly baseline: string;
  /** Length of one measured window. */
  readonly seconds: number;
  /** Documents added to each growing collection for the second window. */
  readonly documents: number;
  readonly admin: { readonly email: string; readonly password: string };
  /** Where CPU profiles go; none: not profiled. */
  readonly profileDir?: string | undefined;
}

/** Collections that grow with a shop's life, by database. */
const growing: Readonly<Record<string, readonly string[]>> = {
  commerce_auth: ["accounts"],
  commerce_user: ["profiles"],
  commerce_product: ["products", "stock_entries", "reservations"],
  commerce_order: ["orders"],
  commerce_notification: ["notifications"],
};

/** Marks the documents this bench added, so it can take them out again. */
const cloneMark = "idleBenchCopy";

/** States of a document that background work would still act on: never copied. */
const unsettled = new Set(["HELD", "PENDING", "RELEASING"]);

/** Pause after a start or a change of the data before a window, for start-up work to end. */
const settleMs = 10_000;

/** A copy of `doc` for the `n`th round: new `_id` and unique values, nothing pending. */
function copyOf(doc: Document, n: number, uniqueFields: readonly string[]): Document {
  const copy: Document = { ...doc, [cloneMark]: true };
  const distinct = (value: unknown): unknown =>
    typeof value === "string"
      ? `${value}~${n}`
      : typeof value === "number"
        ? value + n * 1_000_000_000
        : value;
  copy["_id"] = distinct(doc["_id"]);
  for (const field of uniqueFields) if (field in copy) copy[field] = distinct(copy[field]);
  if ("outbox" in copy) copy["outbox"] = [];
  if ("outboxPending" in copy) copy["outboxPending"] = false;
  if ("stockReleasePending" in copy) copy["stockReleasePending"] = false;
  return copy;
}

/** Adds `count` copies of the settled documents of every growing collection; returns how many. */
async function addDocuments(url: string, count: number): Promise<number> {
  const client = new MongoClient(url);
  let added = 0;
  try {
    for (const [database, names] of Object.entries(growing)) {
      for (const name of names) {
        const collection = client.db(database).collection(name);
        const originals = (await collection.find({ [cloneMark]: { $exists: false } }).toArray()).filter(
          (doc) => doc["outboxPending"] !== true && !unsettled.has(String(doc["state"] ?? doc["status"])),
        );
        if (originals.length === 0) continue;
        const indexes = (await collection.listIndexes().toArray()) as { unique?: boolean; key: Document }[];
        const unique = indexes
          .filter((index) => index.unique === true)
          .flatMap((index) => Object.keys(index.key))
          .filter((field) => field !== "_id");
        let batch: Document[] = [];
        for (let i = 0; i < count; i++) {
          const original = originals[i % originals.length] ?? {};
          batch.push(copyOf(original, Math.floor(i / originals.length) + 1, unique));
          if (batch.length === 500 || i === count - 1) {
            await collection.insertMany(batch, { ordered: false });
            added += batch.length;
            batch = [];
          }
        }
      }
    }
  } finally {
    await client.close();
  }
  return added;
}

async function removeDocuments(url: string): Promise<void> {
  const client = new MongoClient(url);
  try {
    for (const [database, names] of Object.entries(growing)) {
      for (const name of names)
        await client
          .db(database)
          .collection(name)
          .deleteMany({ [cloneMark]: true });
    }
  } finally {
    await client.close();
  }
}

/** A shop's first minutes through the public API: products, customers, orders, a cancellation, a deleted account. */
async function seed(baseUrl: string, admin: IdleBenchOptions["admin"]): Promise<void> {
  const login = (await jsonOk(baseUrl, "POST", "/api/auth/login", undefined, admin)) as { token: string };
  const adminToken = login.token;
  const products = await seedProducts(baseUrl, adminToken, 20, 1_000);
  const buyers = await registerBuyers(baseUrl, 5);
  const orders: string[] = [];
  for (const [b, token] of buyers.entries()) {
    for (let i = 0; i < 4; i++) {
      const productId = products[(b * 4 + i) % products.length] ?? "";
      const placed = (await jsonOk(baseUrl, "POST", "/api/orders", token, {
        items: [{ productId, quantity: 1 }],
      })) as { orderId: string };
      orders.push(placed.orderId);
    }
  }
  for (const orderId of orders.slice(0, 2)) {
    for (const status of ["CONFIRMED", "CANCELLED"])
      await jsonOk(baseUrl, "PUT", `/api/orders/${orderId}/status`, adminToken, { status });
  }
  const gone = (await jsonOk(baseUrl, "GET", "/api/users/me", buyers.at(-1))) as { id: number };
  await jsonOk(baseUrl, "DELETE", `/api/users/${gone.id}`, adminToken);
  await untilQuiet(baseUrl, adminToken);
}

/** CPU time per process name (replicas summed), in µs, of `pids` plus the named servers. */
function cpuByName(pids: readonly number[], servers: ReadonlyMap<string, number>): Map<string, number> {
  const byName = new Map<string, number>();
  for (const pid of pids) {
    const name = processName(pid);
    byName.set(name, (byName.get(name) ?? 0) + treeCpuMicros(pid));
  }
  for (const [name, pid] of servers) byName.set(name, treeCpuMicros(pid));
  return byName;
}

const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1_000n);

interface Window {
  /** Share of one core per process name, in percent. */
  readonly shares: ReadonlyMap<string, number>;
  readonly profile: ProfileWindow;
}

async function measureWindow(
  pids: readonly number[],
  servers: ReadonlyMap<string, number>,
  seconds: number,
): Promise<Window> {
  const before = cpuByName(pids, servers);
  const fromMicros = monotonicMicros();
  const started = performance.now();
  await delay(seconds * 1_000);
  const after = cpuByName(pids, servers);
  const elapsedMicros = (performance.now() - started) * 1_000;
  const shares = new Map(
    [...after].map(([name, micros]) => [name, (100 * (micros - (before.get(name) ?? 0))) / elapsedMicros]),
  );
  return { shares, profile: { fromMicros, toMicros: monotonicMicros() } };
}

const percent = (value: number | undefined): string => (value === undefined ? "-" : `${value.toFixed(1)} %`);

/** The table: one row per process, one column per (data size, revision). */
function table(columns: readonly { readonly title: string; readonly window: Window }[]): string[] {
  const names = [...new Set(columns.flatMap((c) => [...c.window.shares.keys()]))];
  const order = (name: string): number => {
    const i = deployableServices.findIndex((s) => s.name === name);
    return name === "Envoy" ? -1 : i >= 0 ? i : 100;
  };
  names.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const width = Math.max(...columns.map((c) => c.title.length), 9);
  const row = (label: string, cells: readonly string[]): string =>
    `  ${label.padEnd(20)}${cells.map((cell) => cell.padStart(width + 2)).join("")}`;
  const total = (window: Window): number => [...window.shares.values()].reduce((a, b) => a + b, 0);
  return [
    row(
      "process",
      columns.map((c) => c.title),
    ),
    ...names.map((name) =>
      row(
        name,
        columns.map((c) => percent(c.window.shares.get(name))),
      ),
    ),
    row(
      "all together",
      columns.map((c) => percent(total(c.window))),
    ),
  ];
}

/** Where each profiled process spent its busy time in `windows` (the files name their pid). */
function profileLines(
  dir: string,
  names: ReadonlyMap<number, string>,
  windows: readonly { readonly size: string; readonly window: ProfileWindow }[],
): string[] {
  const lines: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread.
    const [, pid, thread] = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\./.exec(file) ?? [];
    const name = `${names.get(Number(pid)) ?? `pid ${pid}`}${thread === "0" ? "" : `, worker thread ${thread}`}`;
    for (const { size, window } of windows) {
      const summary = summarizeCpuProfile(join(dir, file), window, 6);
      if (summary.busyMicros === 0) continue;
      const seconds = (window.toMicros - window.fromMicros) / 1e6;
      const share = (micros: number): string => `${((100 * micros) / (seconds * 1e6)).toFixed(2)} %`;
      lines.push(`  ${name}, ${size}: ${share(summary.busyMicros)} of one core sampled busy`);
      lines.push(`    by place: ${summary.byPlace.map(([place, us]) => `${place} ${share(us)}`).join(", ")}`);
      lines.push(`    by function: ${summary.byFunction.map(([fn, us]) => `${fn} ${share(us)}`).join(", ")}`);
    }
  }
  return lines;
}

export async function benchIdle(options: IdleBenchOptions): Promise<string[]> {
  const log = (line: string): void => {
    process.stderr.write(`idle bench: ${line}\n`);
  };
  const { baseline, revisions } = await beforeAndAfter(options.baseline, log);

  const dir = (name: string): string => join(options.scratch, `idle-${name}`);
  const quiet = { log: () => undefined };
  const [ferret, kafka, clickhouse] = await Promise.all([
    startFerretDb({ dataDir: dir("ferretdb"), ...quiet }),
    startKafka({ dataDir: dir("kafka"), ...quiet }),
    startClickHouse({ dataDir: dir("clickhouse"), ...quiet }),
  ]);
  const servers = new Map([
    ["FerretDB", ferret.pid],
    ["Kafka", kafka.pid],
    ["ClickHouse", clickhouse.pid],
  ]);
  const secret = (bytes: number): string => randomBytes(bytes).toString("base64url");
  const secrets = {
    jwtSecret: secret(64),
    edgeSecret: secret(32),
    peerSecret: secret(32),
    paymentKeySecret: secret(32),
    paymentWebhookSecret: secret(32),
  };
  const columns: { title: string; size: string; revision: string; window: Window }[] = [];
  /** Per revision, what each of its processes runs. */
  const profiled = revisions.map(() => new Map<number, string>());
  let added = 0;
  try {
    for (const [index, revision] of revisions.entries()) {
      const profileDir = options.profileDir === undefined ? undefined : join(options.profileDir, `${index}`);
      if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
      const before = new Set(childProcesses());
      log(`starting the topology of ${revision.label}`);
      const cluster = await revision.start({
        stateDir: dir(`cluster-${index}`),
        mongodbUrl: ferret.url,
        kafkaBrokers: kafka.brokers,
        jwtSecret: secrets.jwtSecret,
        edgeSecret: secrets.edgeSecret,
        peerSecret: secrets.peerSecret,
        settings: {
          ADMIN_EMAIL: options.admin.email,
          ADMIN_PASSWORD: options.admin.password,
          CLICKHOUSE_URL: clickhouse.url,
          PAYMENT_KEY_SECRET: secrets.paymentKeySecret,
          PAYMENT_WEBHOOK_SECRET: secrets.paymentWebhookSecret,
          // The bench pays nothing; the topology's Payment process must be told which gateway.
          PAYMENT_SANDBOX: "true",
        },
        logLevel: "warn",
        // The one set of variables both revisions hand every service as given.
        ...(profileDir === undefined
          ? {}
          : {
              telemetry: { NODE_OPTIONS: `--cpu-prof --cpu-prof-interval=5000 --cpu-prof-dir=${profileDir}` },
            }),
      });
      const pids = childProcesses().filter((pid) => !before.has(pid));
      for (const pid of pids) profiled[index]?.set(pid, `${processName(pid)} (${revision.label})`);
      try {
        if (index === 0) {
          log("seeding through the API");
          await seed(cluster.baseUrl, options.admin);
        }
        // The first revision goes from the seeded data to more, the second back.
        const sizes = index === 0 ? ["seeded", "grown"] : ["grown", "seeded"];
        for (const size of sizes) {
          if (size === "grown" && added === 0) {
            log(`adding ${options.documents} documents to each growing collection`);
            added = await addDocuments(ferret.url, options.documents);
          }
          if (size === "seeded" && added > 0 && index > 0) await removeDocuments(ferret.url);
          await delay(settleMs);
          log(`measuring ${revision.label}, ${size}`);
          const window = await measureWindow(pids, servers, options.seconds);
          columns.push({ title: revision.label, size, revision: revision.label, window });
        }
        const problems = cluster.problems();
        if (problems.length > 0)
          throw new Error(`the topology of ${revision.label} failed: ${problems.join("; ")}`);
      } finally {
        await cluster.stop();
      }
    }
  } finally {
    await Promise.all([ferret.stop(), kafka.stop(), clickhouse.stop()]);
  }

  const ordered = (size: string) =>
    revisions.flatMap((r) => columns.filter((c) => c.size === size && c.revision === r.label));
  const lines = [
    `idle topology on FerretDB + Kafka + ClickHouse, CPU as a share of one core over ${options.seconds} s at rest`,
    `  before: ${options.baseline} (${baseline.commit.slice(0, 12)})${baseline.ownDependencies ? ", on its own dependencies (its lockfile differs)" : ""}; after: the working tree`,
    "  as seeded (20 products, 5 customers, 20 orders, a deleted account):",
    ...table(ordered("seeded")),
    `  with ${added.toLocaleString("en")} more documents (${options.documents.toLocaleString("en")} per growing collection):`,
    ...table(ordered("grown")),
  ];
  if (options.profileDir !== undefined) {
    lines.push("  where the Node processes spent their busy time in those windows (CPU profiles):");
    for (const [index] of revisions.entries()) {
      const windows = columns
        .filter((c) => c.revision === revisions[index]?.label)
        .map((c) => ({ size: c.size, window: c.window.profile }));
      lines.push(
        ...profileLines(join(options.profileDir, `${index}`), profiled[index] ?? new Map(), windows),
      );
    }
  }
  return lines;
}
