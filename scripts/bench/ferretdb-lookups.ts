/**
 * What a read by `_id` costs FerretDB 1.24 as a collection grows, on SQLite and on PostgreSQL
 * (ADR 0121), the store's processes counted (the launcher and what runs under it): the figure
 * behind the order's cost on a store server (order-cost-bench.ts). On SQLite a read that finds
 * nothing (the stock ledger's "is there a newer entry?", a claim that was never made) reads
 * every document of the collection, with string ids and ObjectIds alike; on PostgreSQL every
 * read is an index lookup. Printed beside the order's figures, never asserted.
 */
import { MongoClient, ObjectId, type Document } from "mongodb";
import { join } from "node:path";
import { startFerretDb, type FerretDbBackend } from "../infra/ferretdb.js";
import { treeCpuMicros } from "./load.js";

const sizes = [1_000, 5_000, 20_000];
const readsPerFigure = 40;
const padding = "x".repeat(200);

const titles: Readonly<Record<FerretDbBackend, string>> = { sqlite: "SQLite", postgresql: "PostgreSQL" };

export async function benchFerretDbLookups(scratch: string): Promise<string[]> {
  const lines: string[] = [];
  for (const backend of ["sqlite", "postgresql"] as const) lines.push(...(await lookupsOn(backend, scratch)));
  return lines;
}

async function lookupsOn(backend: FerretDbBackend, scratch: string): Promise<string[]> {
  const ferret = await startFerretDb({
    dataDir: join(scratch, `ferretdb-lookups-${backend}`),
    backend,
    log: () => undefined,
  });
  const client = new MongoClient(ferret.url);
  try {
    await client.connect();
    const db = client.db("lookups");
    const strings = db.collection("strings");
    const objects = db.collection("objects");
    const objectIds: ObjectId[] = [];
    const lines = [
      `FerretDB 1.24 on ${titles[backend]}: a read by _id as the collection grows, the store's CPU ms per read (wall ms in brackets)`,
    ];
    let stored = 0;
    for (const size of sizes) {
      for (let start = stored; start < size; start += 1_000) {
        const end = Math.min(size, start + 1_000);
        const ids = Array.from({ length: end - start }, () => new ObjectId());
        objectIds.push(...ids);
        await strings.insertMany(
          Array.from({ length: end - start }, (_, i) => ({ _id: `doc-${start + i}`, padding })) as Document[],
        );
        await objects.insertMany(ids.map((_id) => ({ _id, padding })));
      }
      stored = size;
      const msPerRead = async (read: (i: number) => Promise<unknown>): Promise<string> => {
        const started = performance.now();
        const cpuBefore = treeCpuMicros(ferret.pid);
        for (let i = 0; i < readsPerFigure; i++) await read(i);
        const cpuMs = (treeCpuMicros(ferret.pid) - cpuBefore) / 1_000 / readsPerFigure;
        const wallMs = (performance.now() - started) / readsPerFigure;
        return `${cpuMs.toFixed(1)} (${wallMs.toFixed(1)})`;
      };
      const found = await msPerRead((i) => strings.findOne({ _id: `doc-${(i * 37) % size}` } as Document));
      const missing = await msPerRead((i) => strings.findOne({ _id: `none-${i}` } as Document));
      const objectFound = await msPerRead((i) =>
        objects.findOne({ _id: objectIds[(i * 37) % size] ?? new ObjectId() }),
      );
      const objectMissing = await msPerRead(() => objects.findOne({ _id: new ObjectId() }));
      lines.push(
        `  ${size.toLocaleString("en-US").padStart(6)} documents: string id found ${found}, missing ${missing}; ObjectId found ${objectFound}, missing ${objectMissing}`,
      );
    }
    return lines;
  } finally {
    await client.close();
    await ferret.stop();
  }
}
