/**
 * The delivery contract of the `EventBus` port (event-bus.ts), as one mocha suite that every
 * adapter runs (docs/architecture.md §6: one contract suite per port): the embedded bus in
 * embedded-bus.spec.ts, Kafka in its own spec. Call it inside a `describe` whose hooks prepare
 * the adapter's storage.
 *
 * Every test uses fresh topic and group names, so a broker that keeps topics between tests
 * (Kafka) needs no cleanup, and every bus a test opens is closed after it.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { EventBus, EventHandler, EventRecord, Subscription } from "./event-bus.js";

export interface EventBusContractOptions {
  /**
   * Opens a bus on the current test's storage. Called again after the previous bus closed, to
   * restart it: the new bus must see the same topics and committed positions.
   */
  readonly open: () => Promise<EventBus>;
  /** Longest wait for a delivery (default 5000 ms); redelivery after a failure must fit in it. */
  readonly deliveryTimeoutMs?: number;
}

export function eventBusContract(options: EventBusContractOptions): void {
  const timeoutMs = options.deliveryTimeoutMs ?? 5000;
  let opened: EventBus[] = [];
  let subscriptions: Subscription[] = [];
  let names: { topic: string; other: string; group: string; group2: string };

  async function open(): Promise<EventBus> {
    const bus = await options.open();
    opened.push(bus);
    return bus;
  }

  async function subscribe(
    bus: EventBus,
    group: string,
    handler: EventHandler,
    topics = [names.topic],
  ): Promise<Subscription> {
    const subscription = await bus.subscribe({ group, topics, handler });
    subscriptions.push(subscription);
    return subscription;
  }

  /** A handler that records the ids it is given, in delivery order. */
  /**
   * Records what a handler received, each record once: delivery is at least once, so a broker
   * may legitimately deliver a record again (a consumer-group rebalance before its commit, on a
   * busy machine). Tests assert on first deliveries; a record redelivered after its commit
   * still shows up where a test expects none (a fresh recorder after a restart).
   */
  function recorder(): { ids: string[]; records: EventRecord[]; handler: EventHandler } {
    const ids: string[] = [];
    const records: EventRecord[] = [];
    const seen = new Set<string>();
    return {
      ids,
      records,
      handler: (record) => {
        if (!seen.has(record.id)) {
          seen.add(record.id);
          ids.push(record.id);
          records.push(record);
        }
        return Promise.resolve();
      },
    };
  }

  async function until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await delay(5);
    }
  }

  function record(n: number, subject = "order-1", topic = names.topic): EventRecord {
    return {
      id: `${topic}/${n}`,
      type: "ORDER_PLACED",
      source: "/commerce/contract-test",
      time: "2024-05-01T10:00:00.000Z",
      subject,
      topic,
      data: JSON.stringify({ orderId: subject, n }),
    };
  }

  const ids = (...ns: number[]): string[] => ns.map((n) => `${names.topic}/${n}`);

  beforeEach(() => {
    const suffix = randomUUID().slice(0, 8);
    names = {
      topic: `contract-${suffix}-events`,
      other: `contract-${suffix}-other`,
      group: `contract-${suffix}-group`,
      group2: `contract-${suffix}-group2`,
    };
  });

  afterEach(async () => {
    await Promise.allSettled(subscriptions.map((subscription) => subscription.close()));
    await Promise.allSettled(opened.map((bus) => bus.close()));
    subscriptions = [];
    opened = [];
  });

  it("delivers every record to every group, a late group starting from the earliest record", async () => {
    const bus = await open();
    await bus.publish([record(1, "a"), record(2, "b"), record(3, "a")]);
    await bus.publish([record(4, "c")]);
    const first = recorder();
    await subscribe(bus, names.group, first.handler);
    await until(() => first.ids.length === 4, "four deliveries to the first group");
    const late = recorder();
    await subscribe(bus, names.group2, late.handler);
    await until(() => late.ids.length === 4, "four deliveries to the late group");

    // The port orders records per key only (Kafka keeps no order across partitions).
    expect([...first.ids].sort()).to.deep.equal(ids(1, 2, 3, 4).sort());
    expect([...late.ids].sort()).to.deep.equal(ids(1, 2, 3, 4).sort());
    for (const seen of [first, late]) {
      expect(seen.records.filter((r) => r.subject === "a").map((r) => r.id)).to.deep.equal(
        [record(1, "a"), record(3, "a")].map((r) => r.id),
      );
    }
    expect(first.records.find((r) => r.id === record(2, "b").id)).to.deep.equal(record(2, "b"));
  });

  it("delivers records published while subscribed, on each subscribed topic only", async () => {
    const bus = await open();
    const seen = recorder();
    await subscribe(bus, names.group, seen.handler, [names.topic, names.other]);
    const elsewhere = recorder();
    await subscribe(bus, names.group2, elsewhere.handler, [names.other]);
    await bus.publish([record(1, "a"), record(2, "a", names.other)]);
    await until(() => seen.ids.length === 2 && elsewhere.ids.length === 1, "three deliveries");

    expect([...seen.ids].sort()).to.deep.equal([`${names.topic}/1`, `${names.other}/2`]);
    expect(elsewhere.ids).to.deep.equal([`${names.other}/2`]);
  });

  it("keeps each key's order while publishes for different keys interleave", async () => {
    const bus = await open();
    const seen = recorder();
    await subscribe(bus, names.group, seen.handler);
    const keys = ["order-a", "order-b", "order-c"];
    const perKey = 12;
    await Promise.all(
      keys.map(async (key, k) => {
        for (let i = 0; i < perKey; i += 1) await bus.publish([record(k * 100 + i, key)]);
      }),
    );
    await bus.publish(keys.flatMap((key, k) => [record(k * 100 + 50, key), record(k * 100 + 51, key)]));
    const total = keys.length * (perKey + 2);
    await until(() => seen.ids.length === total, `${total} deliveries`);

    keys.forEach((key, k) => {
      const expected = [...Array.from({ length: perKey }, (_, i) => k * 100 + i), k * 100 + 50, k * 100 + 51];
      const delivered = seen.records.filter((r) => r.subject === key).map((r) => r.id);
      expect(delivered, key).to.deep.equal(ids(...expected));
    });
  });

  it("redelivers a record whose handler failed and holds later records back until it succeeds", async () => {
    const bus = await open();
    const attempts: string[] = [];
    let failed = false;
    await subscribe(bus, names.group, (r) => {
      attempts.push(r.id);
      if (r.id === ids(2)[0] && !failed) {
        failed = true;
        return Promise.reject(new Error("transient failure"));
      }
      return Promise.resolve();
    });
    await bus.publish([record(1), record(2), record(3)]);
    await until(() => attempts.length === 4, "four attempts");

    expect(attempts).to.deep.equal(ids(1, 2, 2, 3));
  });

  it("keeps a group's position when its subscription closes and resumes from it", async () => {
    const bus = await open();
    const before = recorder();
    const subscription = await subscribe(bus, names.group, before.handler);
    await bus.publish([record(1), record(2)]);
    await until(() => before.ids.length === 2, "two deliveries");
    await subscription.close();
    await bus.publish([record(3)]);
    const after = recorder();
    await subscribe(bus, names.group, after.handler);
    await until(() => after.ids.length === 1, "one delivery after resubscribing");
    await bus.publish([record(4)]);
    await until(() => after.ids.length === 2, "the next live delivery");

    expect(before.ids).to.deep.equal(ids(1, 2));
    expect(after.ids).to.deep.equal(ids(3, 4));
  });

  it("survives a restart: unconsumed records arrive, committed ones do not come again", async () => {
    const first = await open();
    await first.publish([record(1), record(2), record(3), record(4), record(5)]);
    // The "crash": the handler never gets past record 3 in this run.
    const attempts: string[] = [];
    const subscription = await subscribe(first, names.group, (r) => {
      attempts.push(r.id);
      return r.id === ids(3)[0] ? Promise.reject(new Error("crashed")) : Promise.resolve();
    });
    await until(() => attempts.length >= 3, "the first three attempts");
    await subscription.close();
    await first.close();
    const second = await open();
    const resumed = recorder();
    await subscribe(second, names.group, resumed.handler);
    await until(() => resumed.ids.length === 3, "three deliveries after the restart");
    await second.publish([record(6)]);
    await until(() => resumed.ids.length === 4, "a live delivery after the restart");

    expect(attempts.slice(0, 3)).to.deep.equal(ids(1, 2, 3));
    expect(new Set(attempts.slice(2))).to.deep.equal(new Set(ids(3)));
    expect(resumed.ids).to.deep.equal(ids(3, 4, 5, 6));
  });

  it("keeps records published before any group existed across a restart", async () => {
    const first = await open();
    await first.publish([record(1, "a"), record(2, "b")]);
    await first.close();
    const second = await open();
    const seen = recorder();
    await subscribe(second, names.group, seen.handler);
    await until(() => seen.ids.length === 2, "two deliveries");

    const byId = (a: { id: string }, b: { id: string }): number => a.id.localeCompare(b.id);
    expect([...seen.records].sort(byId)).to.deep.equal([record(1, "a"), record(2, "b")].sort(byId));
  });

  it("shares a group's records between its members, each record to one of them", async () => {
    const bus = await open();
    const a = recorder();
    const b = recorder();
    const memberA = await subscribe(bus, names.group, a.handler);
    await subscribe(bus, names.group, b.handler);
    await bus.publish(Array.from({ length: 10 }, (_, i) => record(i + 1, `order-${i % 3}`)));
    await until(() => a.ids.length + b.ids.length === 10, "ten deliveries");
    await memberA.close();
    await bus.publish([record(11), record(12)]);
    await until(() => a.ids.length + b.ids.length === 12, "twelve deliveries");

    expect([...a.ids, ...b.ids].sort()).to.deep.equal(ids(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12).sort());
    expect(b.ids.slice(-2)).to.deep.equal(ids(11, 12));
  });

  it("waits for the handler in flight when a subscription closes", async () => {
    const bus = await open();
    const steps: string[] = [];
    const subscription = await subscribe(bus, names.group, async () => {
      steps.push("handler started");
      await delay(50);
      steps.push("handler finished");
    });
    await bus.publish([record(1)]);
    await until(() => steps.length === 1, "the handler to start");
    steps.push("close called");
    await subscription.close();
    steps.push("closed");

    expect(steps).to.deep.equal(["handler started", "close called", "handler finished", "closed"]);
  });

  it("refuses to publish once closed", async () => {
    const bus = await open();
    await bus.close();
    let error: unknown;
    try {
      await bus.publish([record(1)]);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(Error);
  });
}
