/**
 * The one contract of the document-store port (ADR 0019: one contract suite per port, run
 * against every adapter). An adapter's spec calls `describeDocumentStoreContract` with a way to
 * reach its storage; every behaviour a service may rely on is asserted here, with exact values,
 * so an adapter that passes is interchangeable with the others. Semantics follow MongoDB's
 * where the port does not say more (missing fields equal null, sort order across types).
 */
import { expect } from "chai";
import {
  DuplicateKeyError,
  type Collection,
  type DocumentStore,
  type Filter,
  type IndexSpec,
  type StoreProvider,
  type VersionedDocument,
} from "./document-store.js";
import { rejectionOf } from "../testing/rejection.js";

/** What an adapter's spec provides to run the contract. */
export interface ContractTarget {
  /** A provider over the adapter's storage; every provider opened reaches the same data. */
  openProvider(): Promise<StoreProvider>;
  /** Two distinct databases, fresh for this run. */
  readonly databases: readonly [string, string];
  /** Removes what the run stored; called after the last provider was closed. */
  cleanup(): Promise<void>;
}

interface Item extends VersionedDocument {
  readonly _id: string;
  readonly sku: string;
  readonly category: string;
  readonly price: number;
  readonly active: boolean;
  readonly note?: string | null;
  readonly tags: readonly string[];
}

interface Seat {
  readonly _id: string;
  readonly flight: string;
  readonly seat: string;
}

interface Counter extends VersionedDocument {
  readonly _id: string;
  readonly value: number;
}

interface Numbered {
  readonly _id: number | string;
}

const itemIndexes: readonly IndexSpec<Item>[] = [{ fields: ["sku"], unique: true }, { fields: ["category"] }];

function item(id: string, fields: Partial<Omit<Item, "_id">> = {}): Item {
  return {
    _id: id,
    _v: 1,
    sku: id.toUpperCase(),
    category: "tools",
    price: 10,
    active: true,
    tags: [],
    ...fields,
  };
}

/**
 * The catalogue the filter, sort and paging tests read. `c` and `e` have no `note`, `b` has
 * `note: null`: MongoDB treats both as null.
 */
const catalogue: readonly Item[] = [
  item("a", { category: "tools", price: 10, active: true, note: "x", tags: ["new"] }),
  item("b", { category: "tools", price: 25, active: false, note: null }),
  item("c", { category: "garden", price: 25, active: true }),
  item("d", { category: "garden", price: 40, active: true, note: "y" }),
  item("e", { category: "toys", price: 5, active: false }),
  item("f", { category: "tools", price: 40, active: true, note: "x" }),
];

function defined<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`expected ${what}`);
  return value;
}

async function expectDuplicateKey(promise: Promise<unknown>, collection: string, key: string): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).to.be.instanceOf(DuplicateKeyError);
  expect(error).to.include({ collection, key });
}

export function describeDocumentStoreContract(adapter: string, prepare: () => Promise<ContractTarget>): void {
  describe(`document store contract: ${adapter}`, () => {
    let target: ContractTarget | undefined;
    let provider: StoreProvider | undefined;
    let stores: [DocumentStore, DocumentStore] | undefined;
    let collections = 0;
    /** The name each collection was opened with, which its errors report. */
    const names = new WeakMap<object, string>();
    const nameOf = (collection: object): string => defined(names.get(collection), "a collection name");

    async function openStores(): Promise<void> {
      const { databases } = defined(target, "the contract target");
      provider = await defined(target, "the contract target").openProvider();
      stores = [await provider.open(databases[0]), await provider.open(databases[1])];
    }

    /** A new, empty collection in the first database (or the second). */
    async function fresh<T extends { readonly _id: string | number }>(
      base: string,
      indexes: readonly IndexSpec<T>[] = [],
      database: 0 | 1 = 0,
    ): Promise<Collection<T>> {
      const name = `${base}_${++collections}`;
      const collection = await defined(stores, "open stores")[database].collection<T>({ name, indexes });
      names.set(collection, name);
      return collection;
    }

    async function withCatalogue(): Promise<Collection<Item>> {
      const items = await fresh<Item>("items", itemIndexes);
      for (const doc of catalogue) await items.insert(doc);
      return items;
    }

    async function ids(items: Collection<Item>, filter: Filter<Item>): Promise<string[]> {
      return (await items.find(filter)).map((doc) => doc._id);
    }

    before(async () => {
      target = await prepare();
      await openStores();
    });

    after(async () => {
      await provider?.close();
      await target?.cleanup();
    });

    it("answers ping while it can serve (readiness)", async () => {
      expect(await defined(provider, "the provider").ping()).to.equal(true);
    });

    describe("insert and get", () => {
      it("stores a document and returns an equal copy by id", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        const doc = item("a", { note: "first", tags: ["x", "y"] });
        await items.insert(doc);
        expect(await items.get("a")).to.deep.equal(doc);
        expect(await items.get("missing")).to.equal(undefined);
        expect(await items.count({})).to.equal(1);
      });

      it("hands out copies: mutating the inserted or a returned document changes nothing stored", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        const input = { ...item("a"), tags: ["original"] };
        await items.insert(input);
        input.tags.push("changed after insert");
        const fetched = defined(await items.get("a"), "the stored document");
        (fetched.tags as string[]).push("changed after get");
        const [found] = await items.find({ _id: "a" });
        (defined(found, "a found document").tags as string[]).push("changed after find");
        expect(await items.get("a")).to.deep.equal({ ...item("a"), tags: ["original"] });
      });

      it("rejects a second document with the same _id and keeps the first", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a", { price: 1 }));
        await expectDuplicateKey(
          items.insert(item("a", { sku: "OTHER", price: 2 })),
          nameOf(items),
          '{"_id":"a"}',
        );
        expect(await items.get("a")).to.deep.equal(item("a", { price: 1 }));
        expect(await items.count({})).to.equal(1);
      });

      it("rejects a unique-index conflict on insert and stores nothing of the rejected document", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a", { sku: "SAME" }));
        await expectDuplicateKey(items.insert(item("b", { sku: "SAME" })), nameOf(items), '{"sku":"SAME"}');
        expect(await items.get("b")).to.equal(undefined);
        expect(await items.find({})).to.deep.equal([item("a", { sku: "SAME" })]);
      });

      it("enforces a compound unique index only when every field matches", async () => {
        const seats = await fresh<Seat>("seats", [{ fields: ["flight", "seat"], unique: true }]);
        await seats.insert({ _id: "s1", flight: "F1", seat: "1A" });
        await seats.insert({ _id: "s2", flight: "F1", seat: "1B" });
        await seats.insert({ _id: "s3", flight: "F2", seat: "1A" });
        await expectDuplicateKey(
          seats.insert({ _id: "s4", flight: "F1", seat: "1A" }),
          nameOf(seats),
          '{"flight":"F1","seat":"1A"}',
        );
        expect((await seats.find({})).map((seat) => seat._id)).to.deep.equal(["s1", "s2", "s3"]);
      });

      it("keeps numeric and string ids apart and orders numbers numerically", async () => {
        const numbered = await fresh<Numbered>("numbered");
        for (const id of [2, 10, 1, "1"]) await numbered.insert({ _id: id });
        expect(await numbered.get(1)).to.deep.equal({ _id: 1 });
        expect(await numbered.get("1")).to.deep.equal({ _id: "1" });
        expect((await numbered.find({})).map((doc) => doc._id)).to.deep.equal([1, 2, 10, "1"]);
        const highest = await numbered.findOne(
          { _id: { $lt: "" } },
          { sort: [{ field: "_id", direction: -1 }] },
        );
        expect(highest).to.equal(undefined);
        const last = await numbered.findOne(
          { _id: { $gte: 0 } },
          { sort: [{ field: "_id", direction: -1 }] },
        );
        expect(last).to.deep.equal({ _id: 10 });
      });
    });

    describe("filters", () => {
      const cases: readonly (readonly [string, Filter<Item>, readonly string[]])[] = [
        ["an empty filter matches everything, in _id order", {}, ["a", "b", "c", "d", "e", "f"]],
        ["equality on a string", { category: "tools" }, ["a", "b", "f"]],
        ["equality on a boolean", { active: false }, ["b", "e"]],
        ["equality on a number", { price: 25 }, ["b", "c"]],
        ["equality with null also matches a missing field", { note: null }, ["b", "c", "e"]],
        ["equality by _id", { _id: "c" }, ["c"]],
        ["$in on numbers", { price: { $in: [5, 40] } }, ["d", "e", "f"]],
        ["$in with null matches null and missing", { note: { $in: [null, "y"] } }, ["b", "c", "d", "e"]],
        ["$in on _id skips unknown ids", { _id: { $in: ["e", "zz", "a"] } }, ["a", "e"]],
        ["$ne", { category: { $ne: "tools" } }, ["c", "d", "e"]],
        ["$ne null matches only present, non-null values", { note: { $ne: null } }, ["a", "d", "f"]],
        ["$gt", { price: { $gt: 25 } }, ["d", "f"]],
        ["$gte", { price: { $gte: 25 } }, ["b", "c", "d", "f"]],
        ["$lt", { price: { $lt: 25 } }, ["a", "e"]],
        ["$lte", { price: { $lte: 25 } }, ["a", "b", "c", "e"]],
        ["a range of two operators on one field", { price: { $gte: 10, $lt: 40 } }, ["a", "b", "c"]],
        ["$gt on strings compares them", { sku: { $gt: "C" } }, ["d", "e", "f"]],
        ["$gt on strings ignores null and missing values", { note: { $gt: "" } }, ["a", "d", "f"]],
        ["a conjunction of fields", { category: "tools", active: true }, ["a", "f"]],
        ["a conjunction with an operator", { category: "tools", price: { $gt: 10 } }, ["b", "f"]],
        ["an indexed equality plus a condition", { category: "garden", note: null }, ["c"]],
        ["a unique-indexed equality", { sku: "D" }, ["d"]],
        ["no match", { category: "nothing" }, []],
      ];
      for (const [behaviour, filter, expected] of cases) {
        it(`${behaviour}: find, findOne and count agree`, async () => {
          const items = await withCatalogue();
          expect(await ids(items, filter)).to.deep.equal(expected);
          expect((await items.findOne(filter))?._id).to.equal(expected[0]);
          expect(await items.count(filter)).to.equal(expected.length);
        });
      }

      it("returns whole documents", async () => {
        const items = await withCatalogue();
        expect(await items.find({ note: "x" })).to.deep.equal([catalogue[0], catalogue[5]]);
      });
    });

    describe("sort and paging", () => {
      const byPrice = [{ field: "price", direction: 1 }] as const;

      it("sorts by several keys in their directions", async () => {
        const items = await withCatalogue();
        const sorted = await items.find(
          {},
          {
            sort: [
              { field: "category", direction: 1 },
              { field: "price", direction: -1 },
            ],
          },
        );
        expect(sorted.map((doc) => doc._id)).to.deep.equal(["d", "c", "f", "b", "a", "e"]);
      });

      it("breaks ties by _id ascending, also in a descending sort", async () => {
        const items = await withCatalogue();
        const descending = await items.find({}, { sort: [{ field: "price", direction: -1 }] });
        expect(descending.map((doc) => doc._id)).to.deep.equal(["d", "f", "b", "c", "a", "e"]);
        const ascending = await items.find({}, { sort: byPrice });
        expect(ascending.map((doc) => doc._id)).to.deep.equal(["e", "a", "b", "c", "d", "f"]);
      });

      it("sorts booleans false before true and null or missing before strings", async () => {
        const items = await withCatalogue();
        const byActive = await items.find({}, { sort: [{ field: "active", direction: -1 }] });
        expect(byActive.map((doc) => doc._id)).to.deep.equal(["a", "c", "d", "f", "b", "e"]);
        const byNote = await items.find({}, { sort: [{ field: "note", direction: 1 }] });
        expect(byNote.map((doc) => doc._id)).to.deep.equal(["b", "c", "e", "a", "f", "d"]);
      });

      it("pages with skip and limit over the sorted result", async () => {
        const items = await withCatalogue();
        const page = async (skip: number, limit: number) =>
          (await items.find({}, { sort: byPrice, skip, limit })).map((doc) => doc._id);
        expect(await page(0, 2)).to.deep.equal(["e", "a"]);
        expect(await page(2, 2)).to.deep.equal(["b", "c"]);
        expect(await page(4, 2)).to.deep.equal(["d", "f"]);
        expect(await page(6, 2)).to.deep.equal([]);
        expect(await page(1, 0)).to.deep.equal([]);
        const rest = await items.find({ active: true }, { sort: byPrice, skip: 2 });
        expect(rest.map((doc) => doc._id)).to.deep.equal(["d", "f"]);
      });

      it("findOne takes the first of the sorted window", async () => {
        const items = await withCatalogue();
        expect((await items.findOne({}, { sort: [{ field: "price", direction: -1 }] }))?._id).to.equal("d");
        expect((await items.findOne({ category: "tools" }, { sort: byPrice, skip: 1 }))?._id).to.equal("b");
        expect(await items.findOne({ category: "tools" }, { sort: byPrice, skip: 3 })).to.equal(undefined);
      });

      it("rejects a negative or fractional skip or limit", async () => {
        const items = await withCatalogue();
        expect(await rejectionOf(items.find({}, { limit: -1 }))).to.be.instanceOf(RangeError);
        expect(await rejectionOf(items.find({}, { skip: 1.5 }))).to.be.instanceOf(RangeError);
      });
    });

    describe("swap", () => {
      it("replaces the document when the version matches and reports it", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a", { price: 10 }));
        const next = item("a", { _v: 2, price: 12, note: "repriced" });
        expect(await items.swap(next, 1)).to.equal(true);
        expect(await items.get("a")).to.deep.equal(next);
        expect(await items.swap(item("a", { _v: 3, price: 14 }), 2)).to.equal(true);
        expect(await items.get("a")).to.deep.equal(item("a", { _v: 3, price: 14 }));
      });

      it("refuses a stale version and changes nothing", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a"));
        expect(await items.swap(item("a", { _v: 2, price: 20 }), 1)).to.equal(true);
        expect(await items.swap(item("a", { _v: 2, price: 99 }), 1)).to.equal(false);
        expect(await items.get("a")).to.deep.equal(item("a", { _v: 2, price: 20 }));
      });

      it("refuses a document that does not exist or was deleted, and creates nothing", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        expect(await items.swap(item("ghost", { _v: 2 }), 1)).to.equal(false);
        await items.insert(item("a"));
        expect(await items.delete("a")).to.equal(true);
        expect(await items.swap(item("a", { _v: 2 }), 1)).to.equal(false);
        expect(await items.count({})).to.equal(0);
      });

      it("throws on a unique-index conflict, changes neither document, and the version stays free", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a", { sku: "A" }));
        await items.insert(item("b", { sku: "B" }));
        await expectDuplicateKey(items.swap(item("b", { _v: 2, sku: "A" }), 1), nameOf(items), '{"sku":"A"}');
        expect(await items.find({})).to.deep.equal([item("a", { sku: "A" }), item("b", { sku: "B" })]);
        expect(await items.swap(item("b", { _v: 2, sku: "B2" }), 1)).to.equal(true);
        expect(await ids(items, { sku: "B2" })).to.deep.equal(["b"]);
        expect(await ids(items, { sku: "B" })).to.deep.equal([]);
      });

      it("lets a document keep its own unique key", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a", { sku: "A", price: 1 }));
        expect(await items.swap(item("a", { _v: 2, sku: "A", price: 2 }), 1)).to.equal(true);
        expect(await items.get("a")).to.deep.equal(item("a", { _v: 2, sku: "A", price: 2 }));
      });

      it("rejects a next version that is not expected + 1 and changes nothing", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a"));
        expect(await rejectionOf(items.swap(item("a", { _v: 3 }), 1))).to.be.instanceOf(RangeError);
        expect(await items.get("a")).to.deep.equal(item("a"));
      });
    });

    describe("delete", () => {
      it("deletes by id once and reports whether it did", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a"));
        await items.insert(item("b"));
        expect(await items.delete("a")).to.equal(true);
        expect(await items.delete("a")).to.equal(false);
        expect(await items.delete("never")).to.equal(false);
        expect(await items.get("a")).to.equal(undefined);
        expect(await ids(items, {})).to.deep.equal(["b"]);
      });

      it("frees the unique keys of the deleted document", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a", { sku: "S" }));
        await items.delete("a");
        await items.insert(item("b", { sku: "S" }));
        expect(await ids(items, { sku: "S" })).to.deep.equal(["b"]);
      });
    });

    describe("abort signal", () => {
      it("rejects with the signal's reason and changes nothing when already aborted", async () => {
        const items = await fresh<Item>("items", itemIndexes);
        await items.insert(item("a"));
        const controller = new AbortController();
        const reason = new Error("request cancelled");
        controller.abort(reason);
        const { signal } = controller;
        expect(await rejectionOf(items.get("a", signal))).to.equal(reason);
        expect(await rejectionOf(items.find({}, { signal }))).to.equal(reason);
        expect(await rejectionOf(items.count({}, signal))).to.equal(reason);
        expect(await rejectionOf(items.insert(item("b"), signal))).to.equal(reason);
        expect(await rejectionOf(items.swap(item("a", { _v: 2, price: 99 }), 1, signal))).to.equal(reason);
        expect(await rejectionOf(items.delete("a", signal))).to.equal(reason);
        expect(await items.find({})).to.deep.equal([item("a")]);
      });
    });

    describe("databases and collections", () => {
      it("keeps two databases apart", async () => {
        const name = `shared_${++collections}`;
        const [first, second] = defined(stores, "open stores");
        const inFirst = await first.collection<Item>({ name, indexes: itemIndexes });
        const inSecond = await second.collection<Item>({ name, indexes: itemIndexes });
        await inFirst.insert(item("a", { price: 1 }));
        expect(await inSecond.get("a")).to.equal(undefined);
        expect(await inSecond.count({})).to.equal(0);
        await inSecond.insert(item("a", { price: 2 }));
        expect(await inFirst.get("a")).to.deep.equal(item("a", { price: 1 }));
        expect(await inSecond.get("a")).to.deep.equal(item("a", { price: 2 }));
      });

      it("opens a collection again with the same data and indexes", async () => {
        const name = `reopened_${++collections}`;
        const [store] = defined(stores, "open stores");
        const first = await store.collection<Item>({ name, indexes: itemIndexes });
        await first.insert(item("a"));
        const again = await store.collection<Item>({ name, indexes: itemIndexes });
        expect(await again.get("a")).to.deep.equal(item("a"));
        await expectDuplicateKey(again.insert(item("b", { sku: "A" })), name, '{"sku":"A"}');
      });

      it("keeps everything across a restart of the provider", async () => {
        const name = `durable_${++collections}`;
        const spec = { name, indexes: itemIndexes };
        const before = await defined(stores, "open stores")[0].collection<Item>(spec);
        await before.insert(item("a"));
        await before.insert(item("b"));
        await before.insert(item("c"));
        await before.swap(item("a", { _v: 2, price: 11, note: "kept" }), 1);
        await before.delete("b");

        await defined(provider, "the provider").close();
        await openStores();

        const after = await defined(stores, "open stores")[0].collection<Item>(spec);
        expect(await after.find({})).to.deep.equal([
          item("a", { _v: 2, price: 11, note: "kept" }),
          item("c"),
        ]);
        await expectDuplicateKey(after.insert(item("x", { sku: "C" })), name, '{"sku":"C"}');
        expect(await after.swap(item("a", { _v: 3, price: 12 }), 2)).to.equal(true);
        expect(await after.get("a")).to.deep.equal(item("a", { _v: 3, price: 12 }));
      });
    });

    describe("concurrency", () => {
      it("loses no update when 50 writers increment one counter through read-swap retry loops", async function () {
        this.timeout(180_000);
        const counters = await fresh<Counter>("counters");
        await counters.insert({ _id: "c", _v: 1, value: 0 });
        const writers = Array.from({ length: 50 }, async () => {
          let attempts = 0;
          for (;;) {
            attempts++;
            const current = defined(await counters.get("c"), "the counter");
            const next = { ...current, _v: current._v + 1, value: current.value + 1 };
            if (await counters.swap(next, current._v)) return attempts;
          }
        });
        const attempts = await Promise.all(writers);
        expect(await counters.get("c")).to.deep.equal({ _id: "c", _v: 51, value: 50 });
        expect(attempts.every((count) => count >= 1)).to.equal(true);
      });

      it("lets exactly one of 50 concurrent inserts of the same unique key succeed", async function () {
        this.timeout(60_000);
        const items = await fresh<Item>("items", itemIndexes);
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) => items.insert(item(`i${i}`, { sku: "ONE" }))),
        );
        const winners = results.flatMap((result, i) => (result.status === "fulfilled" ? [`i${i}`] : []));
        expect(winners).to.have.length(1);
        const failures = results.flatMap((result): unknown[] =>
          result.status === "rejected" ? [result.reason] : [],
        );
        expect(failures).to.have.length(49);
        for (const failure of failures) expect(failure).to.be.instanceOf(DuplicateKeyError);
        expect(await ids(items, { sku: "ONE" })).to.deep.equal(winners);
        expect(await items.count({})).to.equal(1);
      });

      it("lets exactly one of 50 concurrent inserts of the same _id succeed, and keeps that one", async function () {
        this.timeout(60_000);
        const items = await fresh<Item>("items", itemIndexes);
        const candidates = Array.from({ length: 50 }, (_, i) => item("same", { sku: `S${i}`, price: i }));
        const results = await Promise.allSettled(candidates.map((candidate) => items.insert(candidate)));
        const winners = candidates.filter((_, i) => results[i]?.status === "fulfilled");
        expect(winners).to.have.length(1);
        expect(results.filter((result) => result.status === "rejected")).to.have.length(49);
        expect(await items.find({})).to.deep.equal(winners);
      });
    });
  });
}
