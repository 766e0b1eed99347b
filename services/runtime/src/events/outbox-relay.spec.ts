import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { OrderPlacedSchema, OrderStatusUpdatedSchema } from "../../gen/commerce/events/v1/order_events_pb.js";
import { UserLoginSchema } from "../../gen/commerce/events/v1/auth_events_pb.js";
import type { Collection, StoreProvider } from "../store/document-store.js";
import { createEmbeddedStoreProvider } from "../store/embedded-store.js";
import { createEmbeddedBus } from "./embedded-bus.js";
import type {
  BatchSubscriptionOptions,
  PartitionLag,
  EventBus,
  EventRecord,
  Subscription,
  SubscriptionOptions,
} from "./event-bus.js";
import { createEventFactory } from "./event-factory.js";
import type { EventLogger } from "./event-logger.js";
import type { OutboxCarrier, OutboxEntry } from "./outbox.js";
import {
  createOutboxRelay,
  maxAnnouncedDocuments,
  type OutboxRelay,
  type OutboxRelayOptions,
} from "./outbox-relay.js";

/** An aggregate that carries its events (the order service's shape, reduced). */
interface OrderDocument extends OutboxCarrier {
  readonly _id: string;
  readonly status: string;
}

/** An event-only document (USER_LOGIN changes no state). */
interface LoginDocument extends OutboxCarrier {
  readonly _id: string;
}

const orderEvents = createEventFactory("/commerce/order");
const authEvents = createEventFactory("/commerce/auth");

function placed(orderId: string): OutboxEntry {
  return orderEvents.event(
    OrderPlacedSchema,
    { orderId, customerId: "a@example.com", totalAmountMinor: 1000n },
    orderId,
  );
}

function statusUpdated(orderId: string, status: string): OutboxEntry {
  return orderEvents.event(OrderStatusUpdatedSchema, { orderId, status }, orderId);
}

function order(id: string, outbox: readonly OutboxEntry[], status = "CREATED"): OrderDocument {
  return { _id: id, _v: 1, status, outbox, outboxPending: outbox.length > 0 };
}

/** Keeps log lines for assertions instead of printing them. */
function recordingLogger(): EventLogger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (_fields: object, message: string) => {
    lines.push({ level, message });
  };
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}

/**
 * A test double of our own bus port around the real embedded bus: it can be switched down
 * (publish rejects, as when Kafka is unreachable), held (publish waits for a gate, or for its
 * signal like a well-behaved adapter), and it counts calls and overlapping calls.
 */
class SwitchableBus implements EventBus {
  readonly messagingSystem = "test";
  down = false;
  calls = 0;
  inFlight = 0;
  maxInFlight = 0;
  readonly #inner: EventBus;
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;

  constructor(inner: EventBus) {
    this.#inner = inner;
  }

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  release(): void {
    this.#open?.();
    this.#gate = undefined;
  }

  ping(): Promise<boolean> {
    return Promise.resolve(!this.down);
  }

  async publish(records: readonly EventRecord[], signal?: AbortSignal): Promise<void> {
    this.calls += 1;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.#gate !== undefined) {
        const aborted = new Promise<void>((resolve) => {
          signal?.addEventListener("abort", () => {
            resolve();
          });
        });
        await Promise.race([this.#gate, aborted]);
        signal?.throwIfAborted();
      }
      await delay(1);
      if (this.down) throw new Error("connect ECONNREFUSED 127.0.0.1:9092");
      await this.#inner.publish(records, signal);
    } finally {
      this.inFlight -= 1;
    }
  }

  subscribe(options: SubscriptionOptions): Promise<Subscription> {
    return this.#inner.subscribe(options);
  }

  subscribeBatch(options: BatchSubscriptionOptions): Promise<Subscription> {
    return this.#inner.subscribeBatch(options);
  }

  lag(group: string, topics: readonly string[]): Promise<PartitionLag[]> {
    return this.#inner.lag(group, topics);
  }

  deleteGroup(group: string): Promise<void> {
    return this.#inner.deleteGroup(group);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}

describe("createOutboxRelay", () => {
  let dataDir: string;
  let provider: StoreProvider;
  let orders: Collection<OrderDocument>;
  let logins: Collection<LoginDocument>;
  let bus: SwitchableBus;
  let subscription: Subscription;
  let delivered: EventRecord[];
  let logger: ReturnType<typeof recordingLogger>;
  let relays: OutboxRelay[];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "outbox-relay-"));
    provider = createEmbeddedStoreProvider({ dataDir: join(dataDir, "store") });
    const store = await provider.open("order");
    orders = await store.collection<OrderDocument>({
      name: "orders",
      indexes: [{ fields: ["outboxPending"] }],
    });
    logins = await store.collection<LoginDocument>({
      name: "logins",
      indexes: [{ fields: ["outboxPending"] }],
    });
    bus = new SwitchableBus(
      await createEmbeddedBus({ dataDir: join(dataDir, "bus"), logger: recordingLogger() }),
    );
    delivered = [];
    subscription = await bus.subscribe({
      group: "observer",
      topics: ["order-events", "auth-events"],
      handler: (record) => {
        delivered.push(record);
        return Promise.resolve();
      },
    });
    logger = recordingLogger();
    relays = [];
  });

  afterEach(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await subscription.close();
    await bus.close();
    await provider.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  function relay(options: Partial<OutboxRelayOptions> = {}): OutboxRelay {
    const created = createOutboxRelay({
      bus,
      collections: [orders, logins],
      pollIntervalMs: 60_000,
      batchSize: 10,
      logger,
      retryDelayMs: 5,
      maxRetryDelayMs: 20,
      ...options,
    });
    relays.push(created);
    created.start();
    return created;
  }

  const ids = (entries: readonly OutboxEntry[]): string[] => entries.map((entry) => entry.id);

  it("publishes each document's events in order and empties its outbox in one swap", async () => {
    const first = [placed("o-1"), statusUpdated("o-1", "CONFIRMED"), statusUpdated("o-1", "CANCELLED")];
    const second = [placed("o-2"), statusUpdated("o-2", "CONFIRMED")];
    await orders.insert(order("o-1", first, "CANCELLED"));
    await orders.insert(order("o-2", second, "CONFIRMED"));
    // Two documents per pass: three passes, the last one finding nothing.
    await relay({ batchSize: 1 }).drain();
    await until(() => delivered.length === 5, "five deliveries");

    expect(delivered.filter((r) => r.subject === "o-1")).to.deep.equal(first);
    expect(delivered.filter((r) => r.subject === "o-2")).to.deep.equal(second);
    expect(await orders.get("o-1")).to.deep.equal({ ...order("o-1", [], "CANCELLED"), _v: 2 });
    expect(await orders.get("o-2")).to.deep.equal({ ...order("o-2", [], "CONFIRMED"), _v: 2 });
    expect(bus.calls).to.equal(2);
  });

  it("keeps an entry appended while the publish was in flight, and publishes it next", async () => {
    const first = placed("o-1");
    const later = statusUpdated("o-1", "CONFIRMED");
    await orders.insert(order("o-1", [first]));
    bus.hold();
    const running = relay();
    running.kick();
    await until(() => bus.calls === 1, "the publish to start");
    // The order service confirms the order meanwhile: a new version with one more event.
    const current = (await orders.get("o-1"))!;
    const confirmed = { ...current, status: "CONFIRMED", outbox: [...current.outbox, later], _v: 2 };
    expect(await orders.swap(confirmed, 1)).to.equal(true);
    bus.release();
    await running.drain();
    await until(() => delivered.length === 2, "two deliveries");

    expect(ids(delivered)).to.deep.equal([first.id, later.id]);
    // v2: the append; v3: the first event removed; v4: the second one removed.
    expect(await orders.get("o-1")).to.deep.equal({ ...order("o-1", [], "CONFIRMED"), _v: 4 });
  });

  it("loses nothing while the bus is down, logs the outage once, and removes each event once after it", async () => {
    bus.down = true;
    const first = [placed("o-1"), statusUpdated("o-1", "CONFIRMED")];
    const second = [placed("o-2")];
    await orders.insert(order("o-1", first, "CONFIRMED"));
    await orders.insert(order("o-2", second));
    const running = relay();
    running.kick();
    await until(() => bus.calls >= 4, "four failed publishes");

    expect(await orders.get("o-1")).to.deep.equal(order("o-1", first, "CONFIRMED"));
    expect(await orders.get("o-2")).to.deep.equal(order("o-2", second));
    expect(logger.lines).to.deep.equal([
      {
        level: "error",
        message: "outbox relay: cannot move events (delayed, not lost); retrying with backoff",
      },
    ]);

    bus.down = false;
    await running.drain();
    await until(() => delivered.length === 3, "three deliveries");

    expect(ids(delivered)).to.deep.equal(ids([...first, ...second]));
    expect(await orders.get("o-1")).to.deep.equal({ ...order("o-1", [], "CONFIRMED"), _v: 2 });
    expect(await orders.get("o-2")).to.deep.equal({ ...order("o-2", []), _v: 2 });
    expect(logger.lines.map((line) => line.level)).to.deep.equal(["error", "info"]);
    expect(logger.lines[1]?.message).to.equal("outbox relay: recovered, delayed events are moving again");
  });

  it("deletes an event-only document once its events are published", async () => {
    const login = authEvents.event(UserLoginSchema, { userId: 7, email: "a@example.com" }, "7");
    await logins.insert({ _id: "login-1", _v: 1, outbox: [login], outboxPending: true, outboxOnly: true });
    await relay().drain();
    await until(() => delivered.length === 1, "one delivery");

    expect(delivered).to.deep.equal([login]);
    expect(await logins.get("login-1")).to.equal(undefined);
  });

  it("finds events nobody kicked about by polling", async () => {
    relay({ pollIntervalMs: 20 });
    const event = placed("o-1");
    await orders.insert(order("o-1", [event]));
    await until(() => delivered.length === 1, "the polled event");

    expect(delivered).to.deep.equal([event]);
    await until(async () => (await orders.get("o-1"))?.outboxPending === false, "the outbox to empty");
  });

  it("sends kicked events at once although the poll interval is a minute", async () => {
    const running = relay({ pollIntervalMs: 60_000 });
    await running.drain();
    const event = placed("o-1");
    await orders.insert(order("o-1", [event]));
    const kickedAt = performance.now();
    running.kick();
    await until(() => delivered.length === 1, "the kicked event");

    // Far below the one-minute poll: the kick, not the poll, sent it (loose bound for busy CI).
    expect(performance.now() - kickedAt).to.be.below(10_000);
  });

  it("never runs two passes at once, however often it is kicked", async () => {
    const running = relay({ batchSize: 1 });
    const written: OutboxEntry[] = [];
    for (let n = 0; n < 20; n += 1) {
      const event = placed(`o-${n}`);
      written.push(event);
      await orders.insert(order(`o-${n}`, [event]));
      running.kick();
      running.kick();
    }
    await running.drain();
    await until(() => delivered.length === 20, "twenty deliveries");

    expect(bus.maxInFlight).to.equal(1);
    expect(ids(delivered).sort()).to.deep.equal(ids(written).sort());
    expect(await orders.count({ outboxPending: true })).to.equal(0);
  });

  it("leaves pending events in place when stopped, for the next relay to publish", async () => {
    bus.hold();
    const event = placed("o-1");
    await orders.insert(order("o-1", [event]));
    const first = relay();
    first.kick();
    await until(() => bus.calls === 1, "the publish to start");
    await first.stop();
    bus.release();

    expect(await orders.get("o-1")).to.deep.equal(order("o-1", [event]));
    let error: unknown;
    await first.drain().catch((caught: unknown) => (error = caught));
    expect((error as Error).message).to.equal("outbox relay is not running");

    await relay().drain();
    await until(() => delivered.length === 1, "the delivery by the second relay");
    expect(delivered).to.deep.equal([event]);
    expect(await orders.get("o-1")).to.deep.equal({ ...order("o-1", []), _v: 2 });
  });
  describe("documents announced by their writes (ADR 0095)", () => {
    /** `orders`, counting the searches (`find`) and reads by id (`get`) the relay makes. */
    function counted(): { collection: Collection<OrderDocument>; finds: number; gets: number } {
      const counts = { finds: 0, gets: 0 };
      const collection = new Proxy(orders, {
        get(target, property, receiver) {
          if (property === "get") counts.gets += 1;
          if (property === "find") counts.finds += 1;
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === "function"
            ? (value as (...args: unknown[]) => unknown).bind(target)
            : value;
        },
      });
      return Object.assign(counts, { collection });
    }

    /**
     * Has the drained `running` relay start publishing o-0's event into the held bus: a pass in
     * flight (`bus.release()` lets it finish). Returns the event.
     */
    async function busyPublishing(
      running: OutboxRelay,
      collection: Collection<OrderDocument>,
    ): Promise<OutboxEntry> {
      await running.drain();
      bus.hold();
      const event = placed("o-0");
      await orders.insert(order("o-0", [event]));
      running.written(collection, order("o-0", [event]));
      await until(() => bus.calls === 1, "the first publish to start");
      return event;
    }

    it("publishes an announced document without searching or reading it", async () => {
      const watched = counted();
      const running = relay({ collections: [watched.collection] });
      await running.drain();
      const findsAtRest = watched.finds;
      const event = placed("o-1");
      const doc = order("o-1", [event]);
      await orders.insert(doc);
      running.written(watched.collection, doc);
      await until(() => delivered.length === 1, "the announced event");
      await until(async () => (await orders.get("o-1"))?.outboxPending === false, "the outbox to empty");

      expect(delivered).to.deep.equal([event]);
      expect(watched.finds).to.equal(findsAtRest);
      expect(watched.gets).to.equal(0);
      expect(await orders.get("o-1")).to.deep.equal({ ...order("o-1", []), _v: 2 });
    });

    it("reads back a document announced by id (its write's answer was lost), publishing the newest content", async () => {
      const watched = counted();
      const running = relay({ collections: [watched.collection] });
      await running.drain();
      const findsAtRest = watched.finds;
      const first = placed("o-1");
      const later = statusUpdated("o-1", "CONFIRMED");
      await orders.insert({ ...order("o-1", [first, later], "CONFIRMED"), _v: 2 });
      // The older content is announced too: the id wins, and the read finds both events.
      running.written(watched.collection, order("o-1", [first]));
      running.written(watched.collection, "o-1");
      await until(() => delivered.length === 2, "both events");

      expect(ids(delivered)).to.deep.equal([first.id, later.id]);
      expect(watched.finds).to.equal(findsAtRest);
      expect(watched.gets).to.be.at.least(1);
      await until(async () => (await orders.get("o-1"))?.outboxPending === false, "the outbox to empty");
    });

    it("keeps the newest announced version of a document", async () => {
      const watched = counted();
      const running = relay({ collections: [watched.collection] });
      // A pass is busy publishing something else while o-1 is announced twice.
      const other = await busyPublishing(running, watched.collection);
      const first = placed("o-1");
      const later = statusUpdated("o-1", "CONFIRMED");
      const newest = { ...order("o-1", [first, later], "CONFIRMED"), _v: 2 };
      await orders.insert(newest);
      running.written(watched.collection, newest);
      running.written(watched.collection, order("o-1", [first]));
      bus.release();
      await until(() => delivered.length === 3, "three deliveries");

      expect(ids(delivered)).to.deep.equal([other.id, first.id, later.id]);
      expect(watched.gets).to.equal(0);
    });

    it("drops the announcement of a deleted document, whose events a carrier publishes once", async () => {
      const watched = counted();
      const running = relay({ collections: [watched.collection, logins] });
      const other = await busyPublishing(running, watched.collection);
      // Meanwhile o-1 is written, then deleted, its pending event handed to a carrier.
      const event = placed("o-1");
      running.written(watched.collection, order("o-1", [event]));
      const carrier = { _id: "handover-1", _v: 1, outbox: [event], outboxPending: true, outboxOnly: true };
      await logins.insert(carrier);
      running.written(logins, carrier);
      running.deleted(watched.collection, "o-1");
      bus.release();
      await running.drain();
      await until(() => delivered.length === 2, "two deliveries");
      await delay(100); // a second publication of o-1's event, had there been one

      expect(ids(delivered)).to.deep.equal([other.id, event.id]);
      expect(await logins.get("handover-1")).to.equal(undefined);
    });

    it("searches instead when more documents are announced than it keeps, losing none", async () => {
      const watched = counted();
      const running = relay({ collections: [watched.collection], batchSize: 100 });
      await running.drain();
      const findsAtRest = watched.finds;
      bus.down = true;
      const count = maxAnnouncedDocuments + 5;
      for (let n = 0; n < count; n += 1) {
        const doc = order(`o-${String(n).padStart(5, "0")}`, [placed(`o-${n}`)]);
        await orders.insert(doc);
        running.written(watched.collection, doc);
      }
      bus.down = false;
      await running.drain();
      await until(() => delivered.length === count, `${count} deliveries`);

      expect(new Set(ids(delivered)).size).to.equal(count);
      expect(watched.finds).to.be.above(findsAtRest);
      expect(await orders.count({ outboxPending: true })).to.equal(0);
    });
  });
});
