import { expect } from "chai";
import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeDocumentStoreContract } from "./document-store.contract.js";
import type { VersionedDocument } from "./document-store.js";
import { createEmbeddedStoreProvider } from "./embedded-store.js";

describeDocumentStoreContract("embedded", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "embedded-store-contract-"));
  return {
    openProvider: () => Promise.resolve(createEmbeddedStoreProvider({ dataDir })),
    databases: ["contract_a", "contract_b"],
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
});

interface Note extends VersionedDocument {
  readonly _id: string;
  readonly text: string;
}

describe("createEmbeddedStoreProvider", () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "embedded-store-"));
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const spec = { name: "notes" };
  const journalOf = () => join(dataDir, "db", "notes.jsonl");
  const linesOf = async () => (await readFile(journalOf(), "utf8")).split("\n").filter((line) => line !== "");

  it("has the record in the journal file when a write resolves", async () => {
    const provider = createEmbeddedStoreProvider({ dataDir });
    const notes = await (await provider.open("db")).collection<Note>(spec);
    await notes.insert({ _id: "n1", _v: 1, text: "hello" });
    expect(await linesOf()).to.deep.equal(['{"put":{"_id":"n1","_v":1,"text":"hello"}}']);
    await notes.delete("n1");
    expect(await linesOf()).to.deep.equal(['{"put":{"_id":"n1","_v":1,"text":"hello"}}', '{"delete":"n1"}']);
    await provider.close();
  });

  it("journals concurrent writes in call order", async () => {
    const provider = createEmbeddedStoreProvider({ dataDir });
    const notes = await (await provider.open("db")).collection<Note>(spec);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => notes.insert({ _id: `n${i}`, _v: 1, text: `${i}` })),
    );
    const lines = await linesOf();
    expect(lines.map((line) => (JSON.parse(line) as { put: Note }).put._id)).to.deep.equal(
      Array.from({ length: 20 }, (_, i) => `n${i}`),
    );
    await provider.close();
  });

  it("drops a torn final record on reopen and keeps appending cleanly", async () => {
    const first = createEmbeddedStoreProvider({ dataDir });
    const notes = await (await first.open("db")).collection<Note>(spec);
    await notes.insert({ _id: "n1", _v: 1, text: "kept" });
    await first.close();
    await appendFile(journalOf(), '{"put":{"_id":"n2","_v":1,"te');

    const second = createEmbeddedStoreProvider({ dataDir });
    const reopened = await (await second.open("db")).collection<Note>(spec);
    expect(await reopened.find({})).to.deep.equal([{ _id: "n1", _v: 1, text: "kept" }]);
    await reopened.insert({ _id: "n3", _v: 1, text: "after" });
    await second.close();

    const third = createEmbeddedStoreProvider({ dataDir });
    const again = await (await third.open("db")).collection<Note>(spec);
    expect((await again.find({})).map((note) => note._id)).to.deep.equal(["n1", "n3"]);
    await third.close();
  });

  it("compacts the journal once it holds far more records than documents, keeping the data", async () => {
    const provider = createEmbeddedStoreProvider({ dataDir });
    const notes = await (await provider.open("db")).collection<Note>(spec);
    await notes.insert({ _id: "n", _v: 1, text: "v1" });
    for (let v = 1; v < 1501; v++) await notes.swap({ _id: "n", _v: v + 1, text: `v${v + 1}` }, v);
    await provider.close();
    // 1 insert + 1500 swaps: the 1001st record triggers a rewrite to the 1 live document,
    // and the 500 swaps after it are appended behind it.
    expect(await linesOf()).to.have.length(501);

    const reopened = createEmbeddedStoreProvider({ dataDir });
    const after = await (await reopened.open("db")).collection<Note>(spec);
    expect(await after.get("n")).to.deep.equal({ _id: "n", _v: 1501, text: "v1501" });
    await reopened.close();
  });

  it("refuses a second provider on a database that is open, and allows it after close", async () => {
    const first = createEmbeddedStoreProvider({ dataDir });
    await first.open("db");
    const second = createEmbeddedStoreProvider({ dataDir });
    const error = await second.open("db").then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.equal(
      `database ${join(dataDir, "db")} is in use by process ${process.pid} (this one)`,
    );
    await first.close();
    const store = await second.open("db");
    expect(await (await store.collection<Note>(spec)).count({})).to.equal(0);
    await second.close();
  });

  it("refuses names that are not plain file names", async () => {
    const provider = createEmbeddedStoreProvider({ dataDir });
    const error = await provider.open("../escape").then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).to.be.instanceOf(TypeError);
    await provider.close();
  });
});
