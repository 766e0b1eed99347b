import { expect } from "chai";
import { testStoreBackends, type TestStore } from "../testing/test-stores.js";
import { DuplicateKeyError, type Collection } from "./document-store.js";
import { idClaimsSpec, insertWithNextId, type IdClaimDocument } from "./sequential-id.js";

interface Thing {
  readonly _id: number;
  readonly name: string;
}

for (const backend of testStoreBackends("services/runtime/src/store/sequential-id.spec.ts")) {
  describe(`insertWithNextId (${backend.name})`, () => {
    let opened: TestStore;
    let things: Collection<Thing>;
    let claims: Collection<IdClaimDocument>;

    beforeEach(async () => {
      opened = await backend.open();
      things = await opened.store.collection<Thing>({
        name: "things",
        indexes: [{ fields: ["name"], unique: true }],
      });
      claims = await opened.store.collection(idClaimsSpec("things"));
    });
    afterEach(() => opened.close());

    const add = (name: string): Promise<Thing> =>
      insertWithNextId(things, claims, async (id) => {
        const thing = { _id: id, name };
        await things.insert(thing);
        return thing;
      });

    it("hands 20 concurrent writers 20 distinct ids, from 1", async () => {
      const added = await Promise.all(Array.from({ length: 20 }, (_, i) => add(`thing ${i}`)));
      expect(added.map((t) => t._id).sort((a, b) => a - b)).to.deep.equal(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    });

    it("never hands out the id of a deleted document again, not even the newest's", async () => {
      await add("first");
      const newest = await add("second");
      expect(await things.delete(newest._id)).to.equal(true);
      expect((await add("third"))._id).to.equal(newest._id + 1);
    });

    it("keeps an id whose insert failed for another reason claimed (a gap, never a repeat)", async () => {
      await add("taken");
      let failure: unknown;
      await add("taken").catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(DuplicateKeyError);
      expect((await add("fresh"))._id).to.equal(3);
    });

    it("goes past documents written before claims existed", async () => {
      await things.insert({ _id: 7, name: "old" });
      expect((await add("new"))._id).to.equal(8);
    });
  });
}
