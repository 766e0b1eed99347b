import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { describeDocumentStoreContract } from "./document-store.contract.js";
import { StoreUnavailableError, type StoreProvider, type VersionedDocument } from "./document-store.js";
import { createMongoStoreProvider } from "./mongo-store.js";
import { eventually } from "../testing/eventually.js";
import { rejectionOf } from "../testing/rejection.js";
import { hostPortOf, startTcpProxy, throughAddress, type TcpProxy } from "../testing/tcp-proxy.js";
import { requiredMongoUrl } from "../testing/test-stores.js";

/**
 * Runs against the server in MONGODB_URL (FerretDB from `npm run infra:up` locally, MongoDB
 * anywhere else). Without it the run fails: a contract that silently did not run would read as
 * a contract that holds.
 */
const mongoUrl = (): string => requiredMongoUrl("services/runtime/src/store/mongo-store.spec.ts");

/** A fresh database name per run, so runs never see each other's data. */
function runDatabase(label: string): string {
  return `store_${label}_${randomBytes(6).toString("hex")}`;
}

async function dropDatabases(url: string, names: readonly string[]): Promise<void> {
  const client = new MongoClient(url);
  try {
    for (const name of names) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

describeDocumentStoreContract("mongodb driver", () => {
  const url = mongoUrl();
  const databases = [runDatabase("a"), runDatabase("b")] as const;
  return Promise.resolve({
    openProvider: () => Promise.resolve(createMongoStoreProvider({ url })),
    databases,
    cleanup: () => dropDatabases(url, databases),
  });
});

interface Counter extends VersionedDocument {
  readonly _id: string;
  readonly value: number;
}

interface Claim {
  readonly _id: string;
  readonly docId: string;
  readonly token: string;
  readonly claimedAt: Date;
  readonly doc: Counter;
}

describe("createMongoStoreProvider: version claims", () => {
  let url: string;
  const database = runDatabase("claims");
  let raw: MongoClient | undefined;

  before(() => {
    url = mongoUrl();
    raw = new MongoClient(url);
  });

  after(async () => {
    await raw?.close();
    if (raw !== undefined) await dropDatabases(url, [database]);
  });

  /** A claim as a writer leaves it when it dies between claiming and writing. */
  async function leaveClaim(collection: string, doc: Counter, ageMs: number): Promise<void> {
    await raw!
      .db(database)
      .collection<Claim>(`${collection}.__versions`)
      .insertOne({
        _id: `${JSON.stringify(doc._id)}@${doc._v}`,
        docId: doc._id,
        token: "crashed-writer",
        claimedAt: new Date(Date.now() - ageMs),
        doc,
      });
  }

  it("waits for a young claim: the swap fails and the document stays as it is", async () => {
    const provider = createMongoStoreProvider({ url, versionClaims: true, claimTimeoutMs: 60_000 });
    const counters = await (await provider.open(database)).collection<Counter>({ name: "young" });
    await counters.insert({ _id: "c", _v: 1, value: 0 });
    await leaveClaim("young", { _id: "c", _v: 2, value: 100 }, 0);
    expect(await counters.swap({ _id: "c", _v: 2, value: 1 }, 1)).to.equal(false);
    expect(await counters.get("c")).to.deep.equal({ _id: "c", _v: 1, value: 0 });
    await provider.close();
  });

  it("rolls a document stuck behind an old claim forward to the claimed content", async () => {
    const provider = createMongoStoreProvider({ url, versionClaims: true, claimTimeoutMs: 1_000 });
    const counters = await (await provider.open(database)).collection<Counter>({ name: "stuck" });
    await counters.insert({ _id: "c", _v: 1, value: 0 });
    await leaveClaim("stuck", { _id: "c", _v: 2, value: 100 }, 5_000);
    expect(await counters.swap({ _id: "c", _v: 2, value: 1 }, 1)).to.equal(false);
    expect(await counters.get("c")).to.deep.equal({ _id: "c", _v: 2, value: 100 });
    expect(await counters.swap({ _id: "c", _v: 3, value: 101 }, 2)).to.equal(true);
    expect(await counters.get("c")).to.deep.equal({ _id: "c", _v: 3, value: 101 });
    await provider.close();
  });

  it("keeps only the claim of the current version after successful swaps, and none after delete", async () => {
    const provider = createMongoStoreProvider({ url, versionClaims: true });
    const counters = await (await provider.open(database)).collection<Counter>({ name: "tidy" });
    await counters.insert({ _id: "c", _v: 1, value: 0 });
    for (let v = 1; v <= 3; v++)
      expect(await counters.swap({ _id: "c", _v: v + 1, value: v }, v)).to.equal(true);
    const claims = raw!.db(database).collection<Claim>("tidy.__versions");
    expect((await claims.find({}).toArray()).map((claim) => claim._id)).to.deep.equal(['"c"@4']);
    expect(await counters.delete("c")).to.equal(true);
    expect(await claims.countDocuments({})).to.equal(0);
    await provider.close();
  });
});

describe("createMongoStoreProvider: a server that does not answer", function () {
  this.timeout(60_000);
  let url: string;
  let proxy: TcpProxy;
  let provider: StoreProvider;
  const database = runDatabase("outage");

  interface Item {
    readonly _id: string;
  }

  beforeEach(async () => {
    url = mongoUrl();
    proxy = await startTcpProxy(hostPortOf(url));
    provider = createMongoStoreProvider({ url: throughAddress(url, proxy.address) });
  });

  afterEach(async () => {
    await provider.close();
    await proxy.close();
  });

  after(async () => {
    await dropDatabases(mongoUrl(), [database]);
  });

  /** The time `operation` takes to fail, and what it failed with. */
  async function failureOf(operation: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
    const started = performance.now();
    const error = await rejectionOf(operation());
    return { error, ms: performance.now() - started };
  }

  it("fails reads and writes within seconds with StoreUnavailableError while cut, and works again by itself once restored", async () => {
    const items = await (await provider.open(database)).collection<Item>({ name: "items" });
    await items.insert({ _id: "a" });
    expect(await provider.ping()).to.equal(true);
    await proxy.cut();
    const failures = [
      await failureOf(() => items.get("a")),
      await failureOf(() => items.insert({ _id: "b" })),
      await failureOf(() => items.find({})),
      await failureOf(() => items.count({})),
      await failureOf(() => items.swap({ _id: "a", _v: 2 }, 1)),
    ];
    expect(await provider.ping()).to.equal(false);

    for (const { error, ms } of failures) {
      expect(error).to.be.instanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).retryAfterSeconds).to.equal(5);
      // A server that refuses connections fails each operation at once; with no server to send
      // to (a replica set without a primary), the driver waits 2 s, not its default 30 s.
      expect(ms).to.be.below(4_000);
    }
    await proxy.restore();
    const back = await eventually(
      () => items.get("a").catch(() => undefined),
      10_000,
      "a read after the restore",
    );
    expect(back).to.deep.equal({ _id: "a" });
    expect(await provider.ping()).to.equal(true);
  });

  it("answers ping false within its timeout, and cuts operations in flight, when the server accepts connections and answers nothing", async () => {
    const items = await (await provider.open(database)).collection<Item>({ name: "wedged" });
    await items.insert({ _id: "a" });
    proxy.stall();
    const pinged = performance.now();
    expect(await provider.ping()).to.equal(false);
    expect(performance.now() - pinged).to.be.below(4_500);
    // The driver's next look at the server (every 2 s) times out after 5 s and cuts what waits.
    const { error, ms } = await failureOf(() => items.get("a"));

    expect(error).to.be.instanceOf(StoreUnavailableError);
    expect(ms).to.be.below(12_000);
    await proxy.restore();
    expect(
      await eventually(() => items.get("a").catch(() => undefined), 15_000, "a read after the restore"),
    ).to.deep.equal({
      _id: "a",
    });
  });
});
