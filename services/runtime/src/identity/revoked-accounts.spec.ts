import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedBus } from "../events/embedded-bus.js";
import { createEventFactory } from "../events/event-factory.js";
import { createLogger } from "../logging/logger.js";
import type { Collection, CollectionSpec, DocumentStore, StoredDocument } from "../store/document-store.js";
import { createEmbeddedStoreProvider } from "../store/embedded-store.js";
import { eventually } from "../testing/eventually.js";
import { UserDeletedSchema, UserLoginSchema } from "../../gen/commerce/events/v1/auth_events_pb.js";
import { createRevocationFeed, type RevokedAccountDocument } from "./revoked-accounts.js";

/** `store`, counting the list reads of `revoked_accounts` (its `find`) made through it. */
function countingListReads(store: DocumentStore): {
  readonly store: DocumentStore;
  readonly reads: () => number;
} {
  let reads = 0;
  const counting: DocumentStore = {
    identity: store.identity,
    close: () => store.close(),
    async collection<T extends StoredDocument>(spec: CollectionSpec<T>): Promise<Collection<T>> {
      const collection = await store.collection(spec);
      if (spec.name !== "revoked_accounts") return collection;
      return {
        insert: (doc, signal) => collection.insert(doc, signal),
        get: (id, signal) => collection.get(id, signal),
        findOne: (filter, options) => collection.findOne(filter, options),
        find: (filter, options) => {
          reads += 1;
          return collection.find(filter, options);
        },
        count: (filter, signal) => collection.count(filter, signal),
        swap: (next, expected, signal) => collection.swap(next, expected, signal),
        delete: (id, signal) => collection.delete(id, signal),
      };
    },
  };
  return { store: counting, reads: () => reads };
}

describe("createRevocationFeed", () => {
  let dir: string;
  const logger = createLogger("silent", "test");
  const events = createEventFactory("/commerce/auth");

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "revocations-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("revokes an account on USER_DELETED, and still knows it after a restart without the event", async () => {
    const stores = createEmbeddedStoreProvider({ dataDir: join(dir, "documents") });
    const bus = await createEmbeddedBus({ dataDir: join(dir, "events") });
    const feed = await createRevocationFeed({ store: await stores.open("svc"), bus, group: "svc", logger });
    await feed.start();
    await bus.publish([
      events.event(UserLoginSchema, { userId: 4, email: "a@x.test", loggedInAt: "2026-01-01T00:00:00" }, "4"),
      events.event(
        UserDeletedSchema,
        { userId: 5, email: "b@x.test", deletedAt: "2026-01-01T00:00:00" },
        "5",
      ),
    ]);
    await eventually(() => (feed.isRevoked(5) ? true : undefined), 5_000, "account 5 revoked");
    expect(feed.isRevoked(4)).to.equal(false);
    await feed.stop();
    await bus.close();
    await stores.close();

    // A new process on the same database and a bus that will never tell it again.
    const restartedStores = createEmbeddedStoreProvider({ dataDir: join(dir, "documents") });
    const emptyBus = await createEmbeddedBus({ dataDir: join(dir, "other-events") });
    const restarted = await createRevocationFeed({
      store: await restartedStores.open("svc"),
      bus: emptyBus,
      group: "svc",
      logger,
    });
    await restarted.start();
    try {
      expect(restarted.isRevoked(5)).to.equal(true);
      expect(restarted.isRevoked(4)).to.equal(false);
    } finally {
      await restarted.stop();
      await emptyBus.close();
      await restartedStores.close();
    }
  });

  it("learns what another replica of its service consumed, from the shared database", async () => {
    const stores = createEmbeddedStoreProvider({ dataDir: join(dir, "documents") });
    const store = await stores.open("svc");
    const bus = await createEmbeddedBus({ dataDir: join(dir, "events") });
    const quietBus = await createEmbeddedBus({ dataDir: join(dir, "quiet-events") });
    const consuming = await createRevocationFeed({ store, bus, group: "svc", logger });
    const polling = await createRevocationFeed({
      store,
      bus: quietBus,
      group: "svc",
      logger,
      pollIntervalMs: 50,
    });
    await consuming.start();
    await polling.start();
    try {
      await bus.publish([
        events.event(
          UserDeletedSchema,
          { userId: 9, email: "c@x.test", deletedAt: "2026-01-01T00:00:00" },
          "9",
        ),
      ]);
      await eventually(
        () => (polling.isRevoked(9) ? true : undefined),
        5_000,
        "account 9 revoked by polling",
      );
    } finally {
      await consuming.stop();
      await polling.stop();
      await bus.close();
      await quietBus.close();
      await stores.close();
    }
  });

  it("re-reads the list only when a replica learned something, and learns a deletion whose note a crash cut short", async () => {
    const stores = createEmbeddedStoreProvider({ dataDir: join(dir, "documents") });
    const store = await stores.open("svc");
    const bus = await createEmbeddedBus({ dataDir: join(dir, "events") });
    const quietBus = await createEmbeddedBus({ dataDir: join(dir, "quiet-events") });
    const consuming = await createRevocationFeed({ store, bus, group: "svc", logger });
    const counting = countingListReads(store);
    const polling = await createRevocationFeed({
      store: counting.store,
      bus: quietBus,
      group: "svc",
      logger,
      pollIntervalMs: 20,
    });
    await consuming.start();
    await polling.start();
    try {
      expect(counting.reads()).to.equal(1); // at start
      await delay(200); // about ten polls, and nothing learned meanwhile
      expect(counting.reads()).to.equal(1);

      // A replica stored account 11 and crashed before it noted the change: the event comes
      // again (its handling never ended), and this time the note is made.
      const revoked = await store.collection<RevokedAccountDocument>({ name: "revoked_accounts" });
      await revoked.insert({ _id: 11, email: "d@x.test", deletedAt: "2026-01-01T00:00:00" });
      await delay(100);
      expect(polling.isRevoked(11)).to.equal(false);
      await bus.publish([
        events.event(
          UserDeletedSchema,
          { userId: 11, email: "d@x.test", deletedAt: "2026-01-01T00:00:00" },
          "11",
        ),
      ]);
      await eventually(() => (polling.isRevoked(11) ? true : undefined), 5_000, "account 11 revoked");
      expect(counting.reads()).to.equal(2);
    } finally {
      await consuming.stop();
      await polling.stop();
      await bus.close();
      await quietBus.close();
      await stores.close();
    }
  });
});
