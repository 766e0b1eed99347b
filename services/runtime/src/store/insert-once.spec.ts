import { expect } from "chai";
import { testStoreBackends, type TestStore } from "../testing/test-stores.js";
import { DuplicateKeyError, type Collection } from "./document-store.js";
import { insertOnce, type InsertOnceOptions, type InsertOnceOutcome } from "./insert-once.js";

/** An entry keyed by a deterministic id, with an idempotency key that is unique too. */
interface Entry {
  readonly _id: string;
  readonly key: string;
  readonly status: "WRITTEN" | "ABANDONED";
}

/** How the insert under test fails: before the store sees it, or after it landed. */
type Fault = "none" | "before the write" | "after the write";

for (const backend of testStoreBackends("services/runtime/src/store/insert-once.spec.ts")) {
  describe(`insertOnce (${backend.name})`, () => {
    let opened: TestStore;
    let entries: Collection<Entry>;

    beforeEach(async () => {
      opened = await backend.open();
      entries = await opened.store.collection<Entry>({
        name: "entries",
        indexes: [{ fields: ["key"], unique: true }],
      });
    });
    afterEach(() => opened.close());

    /** Inserts `entry` through `fault`; ours when the holder carries the same key. */
    function write(entry: Entry, fault: Fault, fence = false): Promise<InsertOnceOutcome<Entry>> {
      const options: InsertOnceOptions<Entry> = {
        async insert() {
          if (fault === "before the write") throw new Error("connection reset before the write");
          await entries.insert(entry);
          if (fault === "after the write") throw new Error("connection reset after the write");
          return entry;
        },
        read: () => entries.get(entry._id),
        isOurs: (holder) => holder.key === entry.key,
        ...(fence
          ? { fence: () => entries.insert({ ...entry, key: `fence:${entry._id}`, status: "ABANDONED" }) }
          : {}),
      };
      return insertOnce(options);
    }

    const entry = (id: string, key: string): Entry => ({ _id: id, key, status: "WRITTEN" });

    it("answers inserted when the insert answers", async () => {
      const outcome = await write(entry("p#1", "reserve:o-1"), "none");
      expect(outcome).to.deep.equal({ kind: "inserted", doc: entry("p#1", "reserve:o-1") });
      expect(await entries.get("p#1")).to.deep.equal(entry("p#1", "reserve:o-1"));
    });

    it("tells its own write, landed with its acknowledgement lost, from a failure", async () => {
      const outcome = await write(entry("p#1", "reserve:o-1"), "after the write");
      expect(outcome.kind).to.equal("ours");
      expect(outcome.kind === "ours" && outcome.doc).to.deep.equal(entry("p#1", "reserve:o-1"));
      expect((outcome as { error: Error }).error.message).to.equal("connection reset after the write");
    });

    it("knows a retried write it made before as its own, on a duplicate key", async () => {
      await entries.insert(entry("p#1", "reserve:o-1"));
      const outcome = await write(entry("p#1", "reserve:o-1"), "none");
      expect(outcome.kind).to.equal("ours");
      expect((outcome as { error: unknown }).error).to.be.instanceOf(DuplicateKeyError);
    });

    it("tells another writer's document under the id from its own, and leaves it as it is", async () => {
      await entries.insert(entry("p#1", "reserve:o-2"));
      const outcome = await write(entry("p#1", "reserve:o-1"), "none");
      expect(outcome.kind).to.equal("theirs");
      expect(outcome.kind === "theirs" && outcome.holder).to.deep.equal(entry("p#1", "reserve:o-2"));
      expect(await entries.get("p#1")).to.deep.equal(entry("p#1", "reserve:o-2"));
    });

    it("answers key-taken when the id is free and another unique key collided", async () => {
      await entries.insert(entry("p#1", "reserve:o-1"));
      const outcome = await write(entry("p#2", "reserve:o-1"), "none");
      expect(outcome.kind).to.equal("key-taken");
      expect(await entries.get("p#2")).to.equal(undefined);
    });

    it("answers unknown when nothing holds the id after a failure and there is no fence", async () => {
      const outcome = await write(entry("p#1", "reserve:o-1"), "before the write");
      expect(outcome.kind).to.equal("unknown");
      expect((outcome as { error: Error }).error.message).to.equal("connection reset before the write");
      expect(await entries.get("p#1")).to.equal(undefined);
    });

    it("closes an open outcome with the fence: the id is taken, and the write can never land", async () => {
      const outcome = await write(entry("o-1", "order:o-1"), "before the write", true);
      expect(outcome.kind).to.equal("fenced");
      expect((await entries.get("o-1"))?.status).to.equal("ABANDONED");
      let late: unknown;
      try {
        await entries.insert(entry("o-1", "order:o-1"));
      } catch (error) {
        late = error;
      }
      expect(late).to.be.instanceOf(DuplicateKeyError);
    });

    it("finds its write when the fence runs into it (it landed between the read and the fence)", async () => {
      const landing = entry("o-1", "order:o-1");
      const outcome = await insertOnce<Entry>({
        insert: () => Promise.reject(new Error("timed out")),
        read: (() => {
          let reads = 0;
          // The first read sees nothing; the write lands before the fence goes in.
          return async () => {
            reads += 1;
            if (reads === 1) {
              await entries.insert(landing);
              return undefined;
            }
            return entries.get("o-1");
          };
        })(),
        isOurs: (holder) => holder.key === landing.key,
        fence: () => entries.insert({ ...landing, key: "fence:o-1", status: "ABANDONED" }),
      });
      expect(outcome.kind).to.equal("ours");
      expect(outcome.kind === "ours" && outcome.doc).to.deep.equal(landing);
    });
  });
}
