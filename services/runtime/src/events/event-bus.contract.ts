/**
 * The delivery contract of the `EventBus` port (event-bus.ts), as one mocha suite that every
 * adapter runs (ADR 0019: one contract suite per port): the embedded bus in
 * embedded-bus.spec.ts, Kafka in its own spec. Call it inside a `describe` whose hooks prepare
 * the adapter's storage.
 *
 * Every test uses fresh topic and group names, so a broker that keeps topics between tests
 * (Kafka) needs no cleanup, and every bus a test opens is closed after it.
 */
import { expect } from "chai";
import { untraced } from "../telemetry/telemetry.js";
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { deadLetterTopic } from "./dead-letter-publisher.js";
import type {
  BatchHandler,
  EventBus,
  EventHandler,
  EventRecord,
  RecordBatch,
  Subscription,
} from "./event-bus.js";
import { startBatchConsumer, startConsumer } from "./event-consumer.js";
import type { EventLogger } from "./event-logger.js";
import { PermanentEventError } from "./permanent-event-error.js";
import { StoreUnavailableError } from "../store/document-store.js";

const silent: EventLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

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

  async function subscribeBatch(
    bus: EventBus,
    group: string,
    handler: BatchHandler,
    bounds: { maxRecords: number; maxWaitMs: number },
  ): Promise<Subscription> {
    const subscription = await bus.subscribeBatch({ group, topics: [names.topic], handler, ...bounds });
    subscriptions.push(subscription);
    return subscription;
  }

  /** Like `recorder`, for batches: each batch as delivered, and every record's first delivery. */
  function batchRecorder(): {
    batches: RecordBatch[];
    ids: string[];
    records: EventRecord[];
    handler: BatchHandler;
  } {
    const batches: RecordBatch[] = [];
    const single = recorder();
    return {
      batches,
      ids: single.ids,
      records: single.records,
      handler: async (batch, signal) => {
        batches.push(batch);
        for (const r of batch.records) await single.handler(r, signal);
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
  const range = (from: number, to: number): number[] =>
    Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const idsOf = (batch: RecordBatch): string[] => batch.records.map((r) => r.id);

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

  it("tells which partition a failing record blocks, since when and how often, until it goes through", async () => {
    const bus = await open();
    let failures = 0;
    let release = false;
    const handled: string[] = [];
    const subscription = await subscribe(bus, names.group, (r) => {
      if (r.id === ids(1)[0] && !release) {
        failures += 1;
        return Promise.reject(new StoreUnavailableError(new Error("connect ECONNREFUSED")));
      }
      handled.push(r.id);
      return Promise.resolve();
    });
    expect(subscription.blocked()).to.deep.equal([]);
    const before = Date.now();
    await bus.publish([record(1), record(2)]);
    await until(() => failures >= 3, "three failed deliveries");
    const [blocked, ...others] = subscription.blocked();

    expect(others).to.deep.equal([]);
    expect(blocked?.topic).to.equal(names.topic);
    expect(blocked?.errorType).to.equal("StoreUnavailableError");
    expect(blocked?.failures).to.be.at.least(3);
    expect(blocked?.since.getTime()).to.be.within(before - 1_000, Date.now());
    expect(handled).to.deep.equal([]);
    release = true;
    await until(() => handled.length === 2, "both records once the first goes through");
    expect(handled).to.deep.equal(ids(1, 2));
    expect(subscription.blocked()).to.deep.equal([]);
  });

  it("under startConsumer, retries a record failing on its store for as long as it fails, parks nothing, and moves on after", async () => {
    const bus = await open();
    let failures = 0;
    const handled: string[] = [];
    const consumer = await startConsumer(bus, {
      group: names.group,
      topics: [names.topic],
      logger: silent,
      telemetry: untraced,
      handler: (r) => {
        // More failures than the 8 attempts consumers once gave a record before parking it.
        if (r.id === ids(1)[0] && failures < 12) {
          failures += 1;
          return Promise.reject(new StoreUnavailableError(new Error("connect ECONNREFUSED")));
        }
        handled.push(r.id);
        return Promise.resolve();
      },
    });
    subscriptions.push(consumer);
    await bus.publish([record(1), record(2)]);
    await until(() => failures >= 6, "six failed deliveries");
    expect(consumer.blocked().map((b) => b.topic)).to.deep.equal([names.topic]);
    await until(() => handled.length === 2, "both records after the outage");

    expect(handled).to.deep.equal(ids(1, 2));
    expect(failures).to.equal(12);
    expect(consumer.blocked()).to.deep.equal([]);
    const parked = await bus.lag(names.group2, [deadLetterTopic(names.group)]);
    expect(parked.every((partition) => partition.end === partition.start)).to.equal(true);
  });

  it("under startConsumer, parks a record whose handler says it can never succeed, and moves on", async () => {
    const bus = await open();
    const parked = recorder();
    await subscribe(bus, names.group2, parked.handler, [deadLetterTopic(names.group)]);
    const handled: string[] = [];
    subscriptions.push(
      await startConsumer(bus, {
        group: names.group,
        topics: [names.topic],
        logger: silent,
        telemetry: untraced,
        handler: (r) => {
          if (r.id === ids(1)[0]) return Promise.reject(new PermanentEventError("has no orderId"));
          handled.push(r.id);
          return Promise.resolve();
        },
      }),
    );
    await bus.publish([record(1), record(2)]);
    await until(() => handled.length === 1 && parked.ids.length === 1, "one handled, one parked");

    expect(handled).to.deep.equal(ids(2));
    expect(parked.records.map((r) => [r.id, r.data, r.deadLetter?.group, r.deadLetter?.topic])).to.deep.equal(
      [[ids(1)[0], record(1).data, names.group, names.topic]],
    );
    expect(parked.records[0]?.deadLetter?.error).to.equal("has no orderId");
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

  it("answers ping while it is open, and no more once closed (readiness)", async () => {
    const bus = await open();
    expect(await bus.ping()).to.equal(true);
    await bus.close();
    expect(await bus.ping()).to.equal(false);
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

  /** Records consumed on `topic` by `group`: its committed positions minus each partition's start. */
  async function consumed(bus: EventBus, group: string, topic = names.topic): Promise<bigint> {
    let total = 0n;
    for (const lag of await bus.lag(group, [topic]))
      total += BigInt(lag.committed ?? lag.start) - BigInt(lag.start);
    return total;
  }

  /** Whether `group` has consumed every partition of the topic up to its end. */
  async function caughtUp(bus: EventBus, group: string): Promise<boolean> {
    const lags = await bus.lag(group, [names.topic]);
    return lags.every((lag) => BigInt(lag.committed ?? lag.start) >= BigInt(lag.end));
  }

  async function untilAsync(condition: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await delay(20);
    }
  }

  describe("lag and deleteGroup", () => {
    it("tells where a group stands on each partition: the log's bounds and its committed position", async () => {
      const bus = await open();
      await bus.publish([record(1, "a"), record(2, "b"), record(3, "c"), record(4, "a"), record(5, "d")]);
      const before = await bus.lag(names.group, [names.topic]);
      expect(before.length).to.be.greaterThan(0);
      expect(before.every((lag) => lag.topic === names.topic && lag.committed === undefined)).to.equal(true);
      // At least the five: a publish the client retried may have written a record twice.
      const held = before.reduce((n, lag) => n + (BigInt(lag.end) - BigInt(lag.start)), 0n);
      expect(held >= 5n, `${held} records held`).to.equal(true);

      const seen = recorder();
      await subscribe(bus, names.group, seen.handler);
      await until(() => seen.ids.length === 5, "five deliveries");
      // Committed after the handler resolved: every partition reaches its end.
      await untilAsync(
        () => caughtUp(bus, names.group),
        "the group to commit up to the end of every partition",
      );
      expect(await consumed(bus, names.group)).to.equal(held);
      // Another group, and a topic nobody wrote to, are untouched.
      expect(await consumed(bus, names.group2)).to.equal(0n);
      const empty = await bus.lag(names.group, [names.other]);
      expect(empty.every((lag) => lag.start === lag.end)).to.equal(true);
    });

    it("deleteGroup forgets a group's positions: its next subscription starts again at the earliest record", async () => {
      const bus = await open();
      await bus.publish([record(1), record(2)]);
      const first = recorder();
      const subscription = await subscribe(bus, names.group, first.handler);
      await until(() => first.ids.length === 2, "two deliveries");
      await untilAsync(() => caughtUp(bus, names.group), "the commits");
      await subscription.close();

      await bus.deleteGroup(names.group);
      expect((await bus.lag(names.group, [names.topic])).map((lag) => lag.committed)).to.satisfy(
        (committed: (string | undefined)[]) => committed.every((offset) => offset === undefined),
      );
      await bus.deleteGroup(names.group);
      await bus.deleteGroup(names.group2);
      const again = recorder();
      await subscribe(bus, names.group, again.handler);
      await until(() => again.ids.length === 2, "both records again");
      expect(again.ids).to.deep.equal(ids(1, 2));
    });
  });

  describe("subscribeBatch", () => {
    it("hands over at most maxRecords consecutive records of one partition, each key in order", async () => {
      const bus = await open();
      const keys = ["order-a", "order-b", "order-c"];
      await bus.publish(range(1, 30).map((n) => record(n, keys[n % keys.length])));
      const seen = batchRecorder();
      await subscribeBatch(bus, names.group, seen.handler, { maxRecords: 4, maxWaitMs: 50 });
      await until(() => seen.ids.length === 30, "30 deliveries");

      expect([...seen.ids].sort()).to.deep.equal(ids(...range(1, 30)).sort());
      const sizes = seen.batches.map((batch) => batch.records.length);
      expect(Math.min(...sizes)).to.be.at.least(1);
      // A backlog fills batches up to the bound, never beyond it.
      expect(Math.max(...sizes)).to.equal(4);
      const partitionsOfKey = new Map<string, Set<number>>();
      for (const batch of seen.batches) {
        expect(batch.topic).to.equal(names.topic);
        for (const r of batch.records) {
          expect(r.topic).to.equal(names.topic);
          partitionsOfKey.set(r.subject, (partitionsOfKey.get(r.subject) ?? new Set()).add(batch.partition));
        }
      }
      keys.forEach((key, k) => {
        expect([...(partitionsOfKey.get(key) ?? [])], key).to.have.length(1);
        const expected = range(1, 30).filter((n) => n % keys.length === k);
        expect(
          seen.records.filter((r) => r.subject === key).map((r) => r.id),
          key,
        ).to.deep.equal(ids(...expected));
      });
    });

    it("redelivers a failed batch from its first record and holds later records back until it succeeds", async () => {
      const bus = await open();
      await bus.publish(range(1, 6).map((n) => record(n)));
      const calls: string[][] = [];
      const handled: string[] = [];
      let failedAt: number | undefined;
      await subscribeBatch(
        bus,
        names.group,
        (batch) => {
          calls.push(idsOf(batch));
          if (failedAt === undefined && idsOf(batch).includes(ids(4)[0] ?? "")) {
            failedAt = calls.length - 1;
            return Promise.reject(new Error("transient failure"));
          }
          for (const id of idsOf(batch)) if (!handled.includes(id)) handled.push(id);
          return Promise.resolve();
        },
        { maxRecords: 3, maxWaitMs: 0 },
      );
      await until(() => handled.length === 6, "six records handled");

      expect(handled).to.deep.equal(ids(...range(1, 6)));
      expect(failedAt).to.not.equal(undefined);
      const failed = calls[failedAt ?? 0] ?? [];
      // The next call repeats the failed batch from its first record: nothing later overtook it.
      expect(calls[(failedAt ?? 0) + 1]?.[0]).to.equal(failed[0]);
      expect(calls.every((call) => call.length >= 1 && call.length <= 3)).to.equal(true);
    });

    it("commits only after the whole batch: across a restart an unacknowledged batch comes again, acknowledged ones do not", async () => {
      const first = await open();
      await first.publish(range(1, 7).map((n) => record(n)));
      const acknowledged: string[] = [];
      let inFlight: string[] | undefined;
      const subscription = await subscribeBatch(
        first,
        names.group,
        async (batch, signal) => {
          const lastN = Number(batch.records.at(-1)?.id.split("/").at(-1));
          if (lastN <= 3) {
            acknowledged.push(...idsOf(batch).filter((id) => !acknowledged.includes(id)));
            return;
          }
          // The consumer stops while this batch is in flight: it is never acknowledged.
          inFlight = idsOf(batch);
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          throw new Error("stopped");
        },
        { maxRecords: 3, maxWaitMs: 0 },
      );
      await until(() => inFlight !== undefined, "a batch in flight");
      await subscription.close();
      await first.close();
      const second = await open();
      const resumed = batchRecorder();
      await subscribeBatch(second, names.group, resumed.handler, { maxRecords: 3, maxWaitMs: 0 });
      const unacknowledged = 7 - acknowledged.length;
      await until(
        () => resumed.ids.length === unacknowledged,
        "the unacknowledged records after the restart",
      );
      await second.publish([record(8)]);
      await until(() => resumed.ids.length === unacknowledged + 1, "a live delivery after the restart");

      expect(acknowledged.length).to.be.at.least(1);
      expect(acknowledged).to.deep.equal(ids(...range(1, acknowledged.length)));
      expect(inFlight?.[0]).to.equal(ids(acknowledged.length + 1)[0]);
      expect(resumed.ids).to.deep.equal(ids(...range(acknowledged.length + 1, 8)));
    });

    it("under startBatchConsumer, dead-letters the poison record of a failing batch and delivers the rest", async () => {
      const bus = await open();
      const parked = recorder();
      await subscribe(bus, names.group2, parked.handler, [deadLetterTopic(names.group)]);
      const handled: string[] = [];
      const poison = ids(3)[0];
      subscriptions.push(
        await startBatchConsumer(bus, {
          group: names.group,
          topics: [names.topic],
          maxRecords: 3,
          maxWaitMs: 0,
          logger: silent,
          telemetry: untraced,
          handler: (batch) => {
            if (batch.records.some((r) => r.id === poison))
              return Promise.reject(new PermanentEventError("cannot project"));
            for (const id of idsOf(batch)) if (!handled.includes(id)) handled.push(id);
            return Promise.resolve();
          },
        }),
      );
      await bus.publish(range(1, 6).map((n) => record(n)));
      await until(() => handled.length === 5 && parked.ids.length === 1, "five records handled, one parked");
      await bus.publish([record(7)]);
      await until(() => handled.length === 6, "the partition to move on");

      expect(handled).to.deep.equal(ids(1, 2, 4, 5, 6, 7));
      expect(parked.ids).to.deep.equal(ids(3));
      expect(parked.records[0]?.deadLetter).to.include({
        group: names.group,
        topic: names.topic,
        error: "cannot project",
      });
    });

    it("waits up to maxWaitMs for a batch to fill, and hands over what it has after that", async () => {
      const bus = await open();
      const seen = batchRecorder();
      await subscribeBatch(bus, names.group, seen.handler, { maxRecords: 100, maxWaitMs: 1500 });
      await bus.publish([record(1)]);
      await bus.publish([record(2)]);
      await until(() => seen.ids.length === 2, "two deliveries");
      // A slow producer: single records far apart still arrive, each within about maxWaitMs.
      await bus.publish([record(3)]);
      await until(() => seen.ids.length === 3, "a third delivery");

      expect(seen.ids).to.deep.equal(ids(1, 2, 3));
      // The second record, published right after the first, joined its batch.
      expect(seen.batches.map(idsOf)).to.deep.equal([ids(1, 2), ids(3)]);
    });

    it("refuses bounds that allow no batch", async () => {
      const bus = await open();
      const handler: BatchHandler = () => Promise.resolve();
      for (const bounds of [
        { maxRecords: 0, maxWaitMs: 0 },
        { maxRecords: 1.5, maxWaitMs: 0 },
        { maxRecords: 1, maxWaitMs: -1 },
      ]) {
        let error: unknown;
        try {
          await subscribeBatch(bus, names.group, handler, bounds);
        } catch (caught) {
          error = caught;
        }
        expect(error, JSON.stringify(bounds)).to.be.instanceOf(RangeError);
      }
    });
  });
}
