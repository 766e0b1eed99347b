import { expect } from "chai";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { capturedLogger } from "../testing/captured-logger.js";
import { rejectionOf } from "../testing/rejection.js";
import { testStoreBackends, type TestStore } from "../testing/test-stores.js";
import { changeDocument, unchanged } from "./change-document.js";
import { forEachBatch, lackingField } from "./document-batches.js";
import {
  migrateDocumentStore,
  migrationRecordsSpec,
  type DocumentMigration,
  type MigrationRecord,
} from "./document-migrations.js";
import type { Collection, VersionedDocument } from "./document-store.js";

interface Parcel extends VersionedDocument {
  readonly _id: number;
  readonly owner: string;
  /** What migration 1 gives every parcel: its owner, upper-cased. */
  readonly label?: string;
}

const spec = "services/runtime/src/store/document-migrations.spec.ts";

for (const backend of testStoreBackends(spec)) {
  describe(`migrateDocumentStore (${backend.name})`, function () {
    this.timeout(30_000);
    let opened: TestStore;
    let parcels: Collection<Parcel>;
    let records: Collection<MigrationRecord>;
    const { logger, lines } = capturedLogger();

    beforeEach(async () => {
      lines.length = 0;
      opened = await backend.open();
      parcels = await opened.store.collection<Parcel>({ name: "parcels" });
      records = await opened.store.collection(migrationRecordsSpec);
    });
    afterEach(() => opened.close());

    /** A migration that records each of its runs in `runs`, after `work`. */
    function migration(
      version: number,
      runs: number[],
      work: (signal: AbortSignal) => Promise<void> = () => Promise.resolve(),
    ): DocumentMigration {
      return {
        version,
        description: `migration ${version}`,
        async run(signal) {
          await work(signal);
          runs.push(version);
        },
      };
    }

    /** Migration 1: labels every parcel that has no label, a batch of 10 at a time, by compare-and-set. */
    const labelling = (batches: number[]): DocumentMigration => ({
      version: 1,
      description: "label the parcels",
      async run(signal) {
        await forEachBatch(
          parcels,
          lackingField<Parcel>("label"),
          async (batch) => {
            batches.push(batch.length);
            for (const parcel of batch) {
              await changeDocument(
                parcels,
                parcel._id,
                (current) =>
                  current.label === undefined
                    ? { ...current, label: current.owner.toUpperCase() }
                    : unchanged,
                signal,
              );
            }
          },
          { batchSize: 10, signal },
        );
      },
    });

    async function addParcels(count: number, from = 1): Promise<void> {
      for (let id = from; id < from + count; id++)
        await parcels.insert({ _id: id, _v: 1, owner: `owner ${id}` });
    }

    it("applies the migrations in order, each once, and records each as done", async () => {
      const runs: number[] = [];
      const list = [migration(1, runs), migration(2, runs), migration(3, runs)];
      await migrateDocumentStore(opened.store, list, { logger });
      await migrateDocumentStore(opened.store, list, { logger });
      expect(runs).to.deep.equal([1, 2, 3]);
      const stored = await records.find({}, { sort: [{ field: "_id", direction: 1 }] });
      expect(stored.map((r) => [r._id, r.description, r.state, r.holder !== ""])).to.deep.equal([
        [1, "migration 1", "done", true],
        [2, "migration 2", "done", true],
        [3, "migration 3", "done", true],
      ]);
      expect(
        stored.every((r) => typeof r.doneAt === "string" && !Number.isNaN(Date.parse(r.doneAt))),
      ).to.equal(true);
      expect(
        lines.filter((line) => line["msg"] === "document migration applied").map((l) => l["version"]),
      ).to.deep.equal([1, 2, 3]);
      // A later release adds a migration: only it runs.
      await migrateDocumentStore(opened.store, [...list, migration(4, runs)], { logger });
      expect(runs).to.deep.equal([1, 2, 3, 4]);
    });

    it("refuses a list not numbered 1, 2, 3…", async () => {
      const error = await rejectionOf(
        migrateDocumentStore(opened.store, [migration(1, []), migration(3, [])], { logger }),
      );
      expect(String(error)).to.include("document migration 2 has version 3");
      expect(await records.count({})).to.equal(0);
    });

    it("runs each migration once when five processes start at once, and none goes on before it is done", async () => {
      const runs: number[] = [];
      const finished: number[] = [];
      const slow = (version: number) => migration(version, runs, () => delay(150));
      const list = [slow(1), slow(2)];
      await Promise.all(
        Array.from({ length: 5 }, async (_, i) => {
          await migrateDocumentStore(opened.store, list, { logger, leaseMs: 5_000, pollMs: 20 });
          // Whoever returns, returns after both were recorded done.
          const done = await records.find({ state: "done" });
          expect(done.length, `process ${i}`).to.equal(2);
          finished.push(i);
        }),
      );
      expect(runs).to.deep.equal([1, 2]);
      expect(finished).to.have.length(5);
    });

    it("finishes a migration whose holder was killed half-way, once its record stops moving", async () => {
      await addParcels(25);
      // What a process killed during migration 1 leaves: its record running, a batch labelled.
      await records.insert({
        _id: 1,
        _v: 7,
        description: "label the parcels",
        state: "running",
        holder: "killed",
      });
      for (let id = 1; id <= 10; id++) {
        await changeDocument(parcels, id, (p) => ({ ...p, label: p.owner.toUpperCase() }));
      }
      const batches: number[] = [];
      const started = performance.now();
      await migrateDocumentStore(opened.store, [labelling(batches)], { logger, leaseMs: 400, pollMs: 50 });
      expect(performance.now() - started).to.be.at.least(400);
      expect(batches).to.deep.equal([10, 5]);
      const all = await parcels.find({}, { sort: [{ field: "_id", direction: 1 }] });
      expect(all.map((p) => p.label)).to.deep.equal(all.map((p) => p.owner.toUpperCase()));
      // Each parcel was changed once: by the killed run or by this one.
      expect(all.map((p) => p._v)).to.deep.equal(all.map(() => 2));
      expect((await records.get(1))?.state).to.equal("done");
      expect(lines.map((line) => line["msg"])).to.include(
        "taking over a document migration whose holder went silent",
      );
    });

    it("never takes over from a live holder: its record keeps moving while it works", async () => {
      const runs: number[] = [];
      const list = [migration(1, runs, () => delay(900))];
      const first = migrateDocumentStore(opened.store, list, { logger, leaseMs: 300, pollMs: 50 });
      await delay(100);
      const second = migrateDocumentStore(opened.store, list, { logger, leaseMs: 300, pollMs: 50 });
      await Promise.all([first, second]);
      expect(runs).to.deep.equal([1]);
      expect(lines.map((line) => line["msg"])).not.to.include(
        "taking over a document migration whose holder went silent",
      );
    });

    it("stops a holder whose migration was taken from it, and waits for the one that took it", async () => {
      const runs: number[] = [];
      let aborted: unknown;
      const list = [
        migration(1, runs, async (signal) => {
          await delay(5_000, undefined, { signal }).catch((error: unknown) => {
            aborted = signal.reason;
            throw error;
          });
        }),
      ];
      const running = migrateDocumentStore(opened.store, list, { logger, leaseMs: 2_000, pollMs: 50 });
      await delay(200);
      // Another process takes it (it judged the holder silent), and finishes it. The holder
      // moves the record every 50 ms, so a take can lose to a heartbeat and is tried again, as
      // a taking process would.
      const takeOver = async (): Promise<boolean> => {
        const record = await records.get(1);
        if (record === undefined) throw new Error("no record");
        return records.swap({ ...record, _v: record._v + 1, holder: "other" }, record._v);
      };
      let taken = false;
      for (let attempt = 0; attempt < 20 && !taken; attempt += 1) taken = await takeOver();
      expect(taken).to.equal(true);
      await delay(200);
      expect(String(aborted)).to.include("another process took the migration over");
      const record = await records.get(1);
      if (record === undefined) throw new Error("no record");
      expect(record.holder).to.equal("other");
      await records.swap({ ...record, _v: record._v + 1, state: "done" }, record._v);
      await running;
      expect(runs).to.deep.equal([]);
    });

    it("releases the record of a migration that failed, so that the next start runs it again at once", async () => {
      const runs: number[] = [];
      let fail = true;
      const list = [
        migration(1, runs),
        migration(2, runs, () =>
          fail ? Promise.reject(new Error("the store went away")) : Promise.resolve(),
        ),
        migration(3, runs),
      ];
      const error = await rejectionOf(migrateDocumentStore(opened.store, list, { logger, leaseMs: 60_000 }));
      expect(String(error)).to.include("the store went away");
      expect(runs).to.deep.equal([1]);
      expect(await records.get(2)).to.deep.include({ state: "running", holder: "" });
      expect(await records.get(3)).to.equal(undefined);
      fail = false;
      const started = performance.now();
      await migrateDocumentStore(opened.store, list, { logger, leaseMs: 60_000 });
      expect(performance.now() - started).to.be.below(10_000);
      expect(runs).to.deep.equal([1, 2, 3]);
    });
  });

  describe(`forEachBatch (${backend.name})`, () => {
    let opened: TestStore;
    let parcels: Collection<Parcel>;

    beforeEach(async () => {
      opened = await backend.open();
      parcels = await opened.store.collection<Parcel>({ name: "parcels" });
    });
    afterEach(() => opened.close());

    it("hands over what the filter selects in batches by ascending id, reading each batch after the last was handled", async () => {
      for (let id = 1; id <= 25; id++) {
        await parcels.insert({ _id: id, _v: 1, owner: `o${id}`, ...(id % 5 === 0 ? { label: "done" } : {}) });
      }
      const batches: number[][] = [];
      const handed = await forEachBatch(
        parcels,
        lackingField<Parcel>("label"),
        async (batch) => {
          batches.push(batch.map((p) => p._id));
          // A document written meanwhile with a higher id is read in its turn.
          if (batches.length === 1) await parcels.insert({ _id: 26, _v: 1, owner: "late" });
        },
        { batchSize: 8 },
      );
      expect(batches).to.deep.equal([
        [1, 2, 3, 4, 6, 7, 8, 9],
        [11, 12, 13, 14, 16, 17, 18, 19],
        [21, 22, 23, 24, 26],
      ]);
      expect(handed).to.equal(21);
    });

    it("hands nothing over for an empty selection", async () => {
      const batches: unknown[] = [];
      expect(await forEachBatch(parcels, {}, (batch) => Promise.resolve(void batches.push(batch)))).to.equal(
        0,
      );
      expect(batches).to.deep.equal([]);
    });
  });
}
