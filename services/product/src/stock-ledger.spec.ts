import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEventFactory, createRecordedCollection } from "@commerce/runtime/events";
import { type StoreProvider, createEmbeddedStoreProvider } from "@commerce/runtime/store";
import { openProductCollections, type ProductCollections } from "./product-store.js";
import { createStockLedger, type StockLedger } from "./stock-ledger.js";

describe("createStockLedger", () => {
  let dir: string;
  let provider: StoreProvider;
  let collections: ProductCollections;
  let written: number;

  /** A ledger as a freshly started process has it: nothing remembered. */
  const freshLedger = (): StockLedger =>
    createStockLedger({
      // The relay is not running here: count its wake-ups instead.
      entries: createRecordedCollection(collections.stockEntries, {
        written: () => (written += 1),
        deleted: () => undefined,
        handOver: () => Promise.reject(new Error("ledger entries are never deleted")),
      }),
      events: createEventFactory("/commerce/product"),
      clock: () => new Date("2026-05-01T10:00:00Z"),
    });

  beforeEach(async () => {
    written = 0;
    dir = await mkdtemp(join(tmpdir(), "ledger-"));
    provider = createEmbeddedStoreProvider({ dataDir: dir });
    collections = await openProductCollections(await provider.open("product"));
  });
  afterEach(async () => {
    await provider.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("records each change as the next entry, with the balance after it and its event", async () => {
    const ledger = freshLedger();
    await ledger.append({ productId: "p", key: "initial:p", reason: "INITIAL", amount: { setTo: 5 } });
    const taken = await ledger.append({
      productId: "p",
      key: "reserve:o:p",
      reason: "ORDER_RESERVED",
      orderId: "o",
      amount: { delta: -2 },
    });
    expect(taken.kind).to.equal("applied");
    if (taken.kind !== "applied") return;
    expect(taken.entry).to.include({
      _id: "p#0000000002",
      seq: 2,
      delta: -2,
      balance: 3,
      reason: "ORDER_RESERVED",
      orderId: "o",
      key: "reserve:o:p",
      at: "2026-05-01T10:00:00",
      outboxPending: true,
    });
    expect(taken.entry.outbox.map((e) => [e.type, e.subject])).to.deep.equal([
      ["PRODUCT_STOCK_UPDATED", "p"],
    ]);
    expect(written).to.equal(1); // the INITIAL entry carries no event
    expect(await ledger.balance("p")).to.equal(3);
    expect(await ledger.balance("unknown")).to.equal(0);
  });

  it("builds on the entry it remembers, and on the current one when another process appended since", async () => {
    const here = freshLedger();
    const there = freshLedger();
    await here.append({ productId: "p", key: "initial:p", reason: "INITIAL", amount: { setTo: 1 } });
    const take = (order: string, delta: number) =>
      here.append({ productId: "p", key: `reserve:${order}:p`, reason: "ORDER_RESERVED", amount: { delta } });
    // `here` remembers balance 1; another process restocks to 11 meanwhile.
    await there.append({ productId: "p", key: "admin:1", reason: "ADMIN_UPDATE", amount: { delta: 10 } });
    // Short by what `here` remembers, not by the current balance: taken, from 11.
    const taken = await take("o1", -5);
    expect(taken.kind === "applied" && taken.entry).to.include({ seq: 3, balance: 6 });
    // Another restock elsewhere: `here` remembers seq 3, the next number is taken, it reads on.
    await there.append({ productId: "p", key: "admin:2", reason: "ADMIN_UPDATE", amount: { delta: 4 } });
    const next = await take("o2", -10);
    expect(next.kind === "applied" && next.entry).to.include({ seq: 5, balance: 0 });
    expect(await take("o3", -1)).to.deep.equal({ kind: "insufficient", balance: 0 });
    // Enough by what `here` remembers, but the number after it is taken: the insert collides, and
    // the next try builds on the current entry.
    await here.append({ productId: "p", key: "admin:3", reason: "ADMIN_UPDATE", amount: { delta: 10 } });
    await there.append({
      productId: "p",
      key: "reserve:x:p",
      reason: "ORDER_RESERVED",
      amount: { delta: -2 },
    });
    const collided = await take("o4", -1);
    expect(collided.kind === "applied" && collided.entry).to.include({ seq: 8, balance: 7 });
    const entries = await collections.stockEntries.find(
      { productId: "p" },
      { sort: [{ field: "seq", direction: 1 }] },
    );
    expect(entries.map((e) => [e.seq, e.delta, e.balance])).to.deep.equal([
      [1, 1, 1],
      [2, 10, 11],
      [3, -5, 6],
      [4, 4, 10],
      [5, -10, 0],
      [6, 10, 10],
      [7, -2, 8],
      [8, -1, 7],
    ]);
  });

  it("refuses a change below zero and records nothing", async () => {
    const ledger = freshLedger();
    await ledger.append({ productId: "p", key: "initial:p", reason: "INITIAL", amount: { setTo: 1 } });
    const outcome = await ledger.append({
      productId: "p",
      key: "reserve:o:p",
      reason: "ORDER_RESERVED",
      amount: { delta: -2 },
    });
    expect(outcome).to.deep.equal({ kind: "insufficient", balance: 1 });
    expect(await collections.stockEntries.count({ productId: "p" })).to.equal(1);
  });

  it("applies a key once: a repeat reports the first entry, even when it would now be short", async () => {
    const ledger = freshLedger();
    await ledger.append({ productId: "p", key: "initial:p", reason: "INITIAL", amount: { setTo: 2 } });
    const change = {
      productId: "p",
      key: "reserve:o:p",
      reason: "ORDER_RESERVED" as const,
      amount: { delta: -2 },
    };
    const first = await ledger.append(change);
    if (first.kind !== "applied") throw new Error(`first append: ${first.kind}`);
    expect(await ledger.append(change)).to.deep.equal({ kind: "already_applied", entry: first.entry });
    expect(await ledger.balance("p")).to.equal(0);
  });

  it("sets an absolute stock as the difference from the current balance, and records nothing when equal", async () => {
    const ledger = freshLedger();
    await ledger.append({ productId: "p", key: "initial:p", reason: "INITIAL", amount: { setTo: 7 } });
    const set = await ledger.append({
      productId: "p",
      key: "admin:1",
      reason: "ADMIN_UPDATE",
      amount: { setTo: 3 },
    });
    expect(set.kind === "applied" && set.entry).to.include({ delta: -4, balance: 3 });
    expect(
      await ledger.append({ productId: "p", key: "admin:2", reason: "ADMIN_UPDATE", amount: { setTo: 3 } }),
    ).to.deep.equal({ kind: "unchanged", balance: 3 });
  });

  it("finds the newest entry after a restart, and keeps appending after it, written by another process", async () => {
    const writer = freshLedger();
    await writer.append({ productId: "p", key: "initial:p", reason: "INITIAL", amount: { setTo: 100 } });
    for (let i = 0; i < 36; i++) {
      await writer.append({
        productId: "p",
        key: `k${i}`,
        reason: "ADMIN_UPDATE",
        amount: { setTo: 100 - i - 1 },
      });
    }
    const restarted = freshLedger();
    expect(await restarted.balance("p")).to.equal(64);
    // The first ledger moves on; the second, which remembers seq 37, still finds the head.
    await writer.append({ productId: "p", key: "more", reason: "ADMIN_UPDATE", amount: { setTo: 10 } });
    const next = await restarted.append({
      productId: "p",
      key: "last",
      reason: "ADMIN_UPDATE",
      amount: { delta: 1 },
    });
    expect(next.kind === "applied" && next.entry).to.include({ seq: 39, balance: 11 });
  });
});
