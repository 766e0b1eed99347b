/**
 * Recorded writes (recorded-collection.ts, change-document.ts) through a service outbox, on the
 * embedded store and on the server in MONGODB_URL (FerretDB in `npm test`; the run fails
 * without it, as mongo-store.spec.ts does). The bus is the real embedded bus.
 */
import { expect } from "chai";
import { untraced } from "../telemetry/telemetry.js";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { MongoClient } from "mongodb";
import { OrderPlacedSchema, OrderStatusUpdatedSchema } from "../../gen/commerce/events/v1/order_events_pb.js";
import { DomainError } from "../errors/domain-error.js";
import { maxChangeAttempts, unchanged } from "../store/change-document.js";
import type { Collection, DocumentStore, StoreProvider } from "../store/document-store.js";
import { createEmbeddedStoreProvider } from "../store/embedded-store.js";
import { createMongoStoreProvider } from "../store/mongo-store.js";
import { eventually } from "../testing/eventually.js";
import { createEmbeddedBus } from "./embedded-bus.js";
import type { EventBus, EventRecord, Subscription } from "./event-bus.js";
import { createEventFactory } from "./event-factory.js";
import type { EventLogger } from "./event-logger.js";
import type { EventCarrierDocument, OutboxCarrier, OutboxEntry } from "./outbox.js";
import { createServiceOutbox, type ServiceOutbox } from "./service-outbox.js";

interface OrderDocument extends OutboxCarrier {
  readonly _id: string;
  readonly status: string;
  readonly moves: number;
}

const quiet: EventLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const events = createEventFactory("/commerce/order");

const placed = (orderId: string): OutboxEntry =>
  events.event(OrderPlacedSchema, { orderId, customerId: "a@x.test", totalAmountMinor: 87n }, orderId);
const moved = (orderId: string, status: string): OutboxEntry =>
  events.event(OrderStatusUpdatedSchema, { orderId, status }, orderId);

interface Backend {
  readonly name: string;
  open(): Promise<{ provider: StoreProvider; database: string; cleanup: () => Promise<void> }>;
}

const embedded: Backend = {
  name: "embedded store",
  async open() {
    const dir = await mkdtemp(join(tmpdir(), "recorded-writes-"));
    return {
      provider: createEmbeddedStoreProvider({ dataDir: dir }),
      database: "orders",
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

const mongo: Backend = {
  name: "MONGODB_URL (FerretDB)",
  open() {
    const url = process.env["MONGODB_URL"];
    if (url === undefined || url === "") {
      throw new Error("MONGODB_URL is not set: start FerretDB (`npm run infra:up`) and pass its URL");
    }
    const database = `recorded_${randomBytes(6).toString("hex")}`;
    return Promise.resolve({
      provider: createMongoStoreProvider({ url }),
      database,
      async cleanup() {
        const client = new MongoClient(url);
        try {
          await client.db(database).dropDatabase();
        } finally {
          await client.close();
        }
      },
    });
  },
};

for (const backend of [embedded, mongo]) {
  describe(`recorded writes on the ${backend.name}`, function () {
    this.timeout(120_000);
    let provider: StoreProvider;
    let store: DocumentStore;
    let cleanup: () => Promise<void>;
    let busDir: string;
    let bus: EventBus;
    let subscription: Subscription;
    let delivered: EventRecord[];
    let raw: Collection<OrderDocument>;
    let carriers: Collection<EventCarrierDocument>;
    let outbox: ServiceOutbox;

    beforeEach(async () => {
      const opened = await backend.open();
      provider = opened.provider;
      cleanup = opened.cleanup;
      store = await provider.open(opened.database);
      raw = await store.collection<OrderDocument>({
        name: "orders",
        indexes: [{ fields: ["outboxPending"] }],
      });
      carriers = await store.collection<EventCarrierDocument>({
        name: "event_carriers",
        indexes: [{ fields: ["outboxPending"] }],
      });
      busDir = await mkdtemp(join(tmpdir(), "recorded-writes-bus-"));
      bus = await createEmbeddedBus({ dataDir: busDir, logger: quiet });
      delivered = [];
      subscription = await bus.subscribe({
        group: "observer",
        topics: ["order-events"],
        handler: (record) => {
          delivered.push(record);
          return Promise.resolve();
        },
      });
      // A poll far beyond every wait below: only a write's own wake-up publishes in time.
      outbox = createServiceOutbox({
        bus,
        logger: quiet,
        telemetry: untraced,
        carriers,
        pollIntervalMs: 600_000,
      });
    });

    afterEach(async () => {
      await outbox.stop();
      await subscription.close();
      await bus.close();
      await provider.close();
      await cleanup();
      await rm(busDir, { recursive: true, force: true });
    });

    const idsOf = (records: readonly EventRecord[]): string[] => records.map((record) => record.id).sort();

    it("publishes a recorded insert's and a recorded change's events once each, woken by the writes", async () => {
      const orders = outbox.track(raw);
      outbox.start();
      const first = placed("o-1");
      const stored = await orders.insert({ _id: "o-1", status: "CREATED", moves: 0 }, [first]);
      expect(stored).to.deep.include({ _id: "o-1", _v: 1, outbox: [first], outboxPending: true });
      await eventually(() => (delivered.length === 1 ? true : undefined), 10_000, "the insert's event");

      const second = moved("o-1", "CONFIRMED");
      const outcome = await orders.change("o-1", (current) => ({
        next: { ...current, status: "CONFIRMED", moves: current.moves + 1 },
        events: [second],
      }));
      expect(outcome?.changed).to.equal(true);
      await eventually(() => (delivered.length === 2 ? true : undefined), 10_000, "the change's event");

      await outbox.drain();
      await delay(200); // a second publication, had there been one, would arrive meanwhile
      expect(idsOf(delivered)).to.deep.equal([first.id, second.id].sort());
      expect(delivered.map((record) => record.type)).to.deep.equal(["ORDER_PLACED", "ORDER_STATUS_UPDATED"]);
      const after = await raw.get("o-1");
      expect(after).to.deep.include({ status: "CONFIRMED", moves: 1, outbox: [], outboxPending: false });
      expect(await raw.count({ outboxPending: true })).to.equal(0);
    });

    it("lands every one of 30 concurrent changes of one document exactly once, with its event", async () => {
      const orders = outbox.track(raw);
      await orders.insert({ _id: "hot", status: "CREATED", moves: 0 }, []);
      const writers = 30;
      const outcomes = await Promise.all(
        Array.from({ length: writers }, (_, i) =>
          orders.change("hot", (current) => ({
            next: { ...current, moves: current.moves + 1 },
            events: [moved("hot", `MOVE_${i}`)],
          })),
        ),
      );
      expect(outcomes.every((outcome) => outcome?.changed === true)).to.equal(true);
      const after = await raw.get("hot");
      expect(after?.moves).to.equal(writers);
      expect(after?._v).to.equal(writers + 1);
      const statuses = (after?.outbox ?? []).map((entry) => JSON.parse(entry.data) as { status: string });
      expect(statuses.map((payload) => payload.status).sort()).to.deep.equal(
        Array.from({ length: writers }, (_, i) => `MOVE_${i}`).sort(),
      );

      outbox.start();
      await outbox.drain();
      await eventually(() => (delivered.length >= writers ? true : undefined), 10_000, "every event");
      expect(delivered).to.have.length(writers);
      expect(new Set(delivered.map((record) => record.id)).size).to.equal(writers);
      expect((await raw.get("hot"))?.outboxPending).to.equal(false);
    });

    it(`gives up with a conflict after ${maxChangeAttempts} lost compare-and-sets, having written nothing of its own`, async () => {
      await raw.insert({ _id: "busy", _v: 1, status: "CREATED", moves: 0, outbox: [], outboxPending: false });
      let rivalWrites = 0;
      // A rival that always writes between this change's read and its swap (real writes).
      const contested: Collection<OrderDocument> = {
        ...raw,
        get: (id, signal) => raw.get(id, signal),
        findOne: (filter, options) => raw.findOne(filter, options),
        find: (filter, options) => raw.find(filter, options),
        count: (filter, signal) => raw.count(filter, signal),
        insert: (doc, signal) => raw.insert(doc, signal),
        delete: (id, signal) => raw.delete(id, signal),
        async swap(next, expected, signal) {
          const current = await raw.get(next._id, signal);
          if (current !== undefined) {
            rivalWrites += (await raw.swap({ ...current, _v: expected + 1 }, expected)) ? 1 : 0;
          }
          return raw.swap(next, expected, signal);
        },
      };
      const orders = outbox.track(contested);
      let decisions = 0;
      const error = await orders
        .change("busy", (current) => {
          decisions++;
          return { next: { ...current, moves: current.moves + 1 }, events: [moved("busy", "X")] };
        })
        .then(
          () => undefined,
          (reason: unknown) => reason,
        );
      expect(error).to.be.instanceOf(DomainError);
      expect(error).to.include({
        kind: "conflict",
        message: "the resource is being changed concurrently; retry",
      });
      expect(decisions).to.equal(maxChangeAttempts);
      expect(rivalWrites).to.equal(maxChangeAttempts);
      expect(await raw.get("busy")).to.deep.include({ moves: 0, outbox: [], outboxPending: false });
    });

    it("writes nothing for an unchanged decision and nothing for a missing document", async () => {
      const orders = outbox.track(raw);
      await orders.insert({ _id: "o-2", status: "CREATED", moves: 0 }, []);
      expect(await orders.change("o-2", () => unchanged)).to.deep.include({ changed: false });
      expect((await raw.get("o-2"))?._v).to.equal(1);
      expect(
        await orders.change("nobody", () => ({ next: { _id: "nobody", status: "X", moves: 0 } })),
      ).to.equal(undefined);
      expect(await raw.count({})).to.equal(1);
    });

    it("hands a deleted document's pending events to a carrier and publishes them; records events alone", async () => {
      const orders = outbox.track(raw);
      const first = placed("o-3");
      await orders.insert({ _id: "o-3", status: "CREATED", moves: 0 }, [first]);
      expect(await orders.delete("o-3")).to.equal(true);
      const alone = moved("o-4", "SEEN");
      await outbox.record([alone]);
      outbox.start();
      await outbox.drain();
      await eventually(() => (delivered.length >= 2 ? true : undefined), 10_000, "both events");
      expect(idsOf(delivered)).to.deep.equal([first.id, alone.id].sort());
      expect(await raw.count({})).to.equal(0);
      expect(await carriers.count({})).to.equal(0);
    });
  });
}
