/**
 * FerretDB on its private PostgreSQL cluster (ferretdb.ts, ./ferretdb/postgresql.go): the
 * cluster lives in the instance's folder, keeps what was written across restarts, and never
 * outlives its launcher, however the launcher ends.
 */
import { expect } from "chai";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { startFerretDb, type FerretDbInstance } from "./ferretdb.js";
import { isAlive, waitUntil } from "./processes.js";

/** The postmaster's pid, from the first line of its lock file in the cluster's folder. */
async function postmasterPid(dataDir: string): Promise<number> {
  const lockFile = await readFile(join(dataDir, "data", "cluster", "postmaster.pid"), "utf8");
  return Number(lockFile.split("\n")[0]);
}

/** The parent of a process, from /proc. */
async function parentOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^PPid:\s+(\d+)$/m.exec(status)?.[1]);
}

/** True once `pid` has exited, within `timeoutMs`. */
const stopped = (pid: number, timeoutMs: number): Promise<boolean> =>
  waitUntil(() => Promise.resolve(!isAlive(pid)), { timeoutMs, intervalMs: 50 });

async function withClient<T>(url: string, use: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000 });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe("FerretDB on a private PostgreSQL cluster", function () {
  this.timeout(120_000);
  let dir: string;
  let running: FerretDbInstance | undefined;
  const quiet = { log: () => undefined };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ferretdb-spec-"));
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it("runs PostgreSQL as its launcher's child and keeps the documents across a restart", async () => {
    running = await startFerretDb({ dataDir: dir, ...quiet });
    const postmaster = await postmasterPid(dir);
    expect(await parentOf(postmaster)).to.equal(running.pid);
    await withClient(running.url, (client) =>
      client
        .db("shop")
        .collection("products")
        .insertOne({ _id: "p1" as never, stock: 3 }),
    );
    await running.stop();
    running = undefined;
    expect(await stopped(postmaster, 10_000)).to.equal(true);

    running = await startFerretDb({ dataDir: dir, ...quiet });
    const found = await withClient(running.url, (client) =>
      client
        .db("shop")
        .collection("products")
        .findOne({ _id: "p1" as never }),
    );
    expect(found).to.deep.equal({ _id: "p1", stock: 3 });
  });

  it("takes PostgreSQL down with a killed launcher, and starts again on the same data", async () => {
    running = await startFerretDb({ dataDir: dir, ...quiet });
    const postmaster = await postmasterPid(dir);
    await withClient(running.url, (client) =>
      client
        .db("shop")
        .collection("orders")
        .insertMany([{ _id: "o1" as never }, { _id: "o2" as never }]),
    );
    process.kill(running.pid, "SIGKILL");
    expect(await stopped(postmaster, 30_000)).to.equal(true);
    running = undefined;

    running = await startFerretDb({ dataDir: dir, ...quiet });
    const ids = await withClient(running.url, (client) =>
      client.db("shop").collection("orders").distinct("_id"),
    );
    expect(ids).to.deep.equal(["o1", "o2"]);
    expect(await postmasterPid(dir)).to.not.equal(postmaster);
  });

  it("stores on SQLite when asked to, without a PostgreSQL cluster", async () => {
    running = await startFerretDb({ dataDir: dir, backend: "sqlite", ...quiet });
    await withClient(running.url, (client) =>
      client
        .db("shop")
        .collection("products")
        .insertOne({ _id: "p1" as never }),
    );
    const names = await withClient(running.url, (client) => client.db("shop").listCollections().toArray());
    expect(names.map((collection) => collection.name)).to.deep.equal(["products"]);
    const cluster = await readFile(join(dir, "data", "cluster", "PG_VERSION")).then(
      () => "created",
      (error: unknown) => (error as NodeJS.ErrnoException).code,
    );
    expect(cluster).to.equal("ENOENT");
  });
});
