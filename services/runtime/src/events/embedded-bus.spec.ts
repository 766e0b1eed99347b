import { expect } from "chai";
import { appendFile, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { setTimeout as delay } from "node:timers/promises";
import { pino } from "pino";
import { createEmbeddedBus, type EmbeddedBusOptions } from "./embedded-bus.js";
import type { EventBus, EventRecord, Subscription } from "./event-bus.js";
import { eventBusContract } from "./event-bus.contract.js";
import type { EventLogger } from "./event-logger.js";

/** Keeps log lines for assertions instead of printing them. */
function recordingLogger(): EventLogger & { lines: { level: string; message: string; fields: object }[] } {
  const lines: { level: string; message: string; fields: object }[] = [];
  const at =
    (level: string) =>
    (fields: object, message: string): void => {
      lines.push({ level, message, fields });
    };
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}

function record(n: number, topic = "orders", subject = "order-1"): EventRecord {
  return {
    id: `evt-${n}`,
    type: "ORDER_PLACED",
    source: "/commerce/test",
    time: "2024-05-01T10:00:00.000Z",
    subject,
    topic,
    data: `{"n":${n}}`,
  };
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}

/** Polls `read` until it returns `expected` (or the deadline passes), then asserts it. */
async function settlesTo<T>(read: () => Promise<T>, expected: T, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let actual = await read();
  while (!isDeepStrictEqual(actual, expected) && Date.now() < deadline) {
    await delay(5);
    actual = await read();
  }
  expect(actual).to.deep.equal(expected);
}

describe("createEmbeddedBus", () => {
  let dataDir: string;
  let logger: ReturnType<typeof recordingLogger>;
  let buses: EventBus[];
  let subscriptions: Subscription[];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "embedded-bus-"));
    logger = recordingLogger();
    buses = [];
    subscriptions = [];
  });

  afterEach(async () => {
    await Promise.allSettled(subscriptions.map((subscription) => subscription.close()));
    await Promise.allSettled(buses.map((bus) => bus.close()));
    await rm(dataDir, { recursive: true, force: true });
  });

  async function open(options: Partial<EmbeddedBusOptions> = {}): Promise<EventBus> {
    const bus = await createEmbeddedBus({
      dataDir,
      logger,
      redeliveryDelayMs: 10,
      maxRedeliveryDelayMs: 500,
      ...options,
    });
    buses.push(bus);
    return bus;
  }

  async function consume(bus: EventBus, group: string, topic = "orders"): Promise<string[]> {
    const ids: string[] = [];
    subscriptions.push(
      await bus.subscribe({
        group,
        topics: [topic],
        handler: (r) => {
          ids.push(r.id);
          return Promise.resolve();
        },
      }),
    );
    return ids;
  }

  const segments = async (topic = "orders"): Promise<string[]> =>
    (await readdir(join(dataDir, "topics", topic))).sort();

  describe("EventBus contract", () => {
    eventBusContract({
      open: () => createEmbeddedBus({ dataDir, logger, redeliveryDelayMs: 10, maxRedeliveryDelayMs: 500 }),
    });
  });

  it("wakes a subscriber as soon as a record is published, without polling", async () => {
    const bus = await open();
    let deliveredAt = 0;
    subscriptions.push(
      await bus.subscribe({
        group: "billing",
        topics: ["orders"],
        handler: () => {
          deliveredAt = performance.now();
          return Promise.resolve();
        },
      }),
    );
    // Let the consumer go idle, so that a polling loop would now be mid-interval.
    await delay(300);
    await bus.publish([record(1)]);
    const publishedAt = performance.now();
    await until(() => deliveredAt > 0, "the delivery");

    // The bus has no poll at all; a generous bound keeps busy CI machines from flaking.
    expect(deliveredAt - publishedAt).to.be.below(2_000);
  });

  it("stores each topic as JSON lines and each group's position as a small file", async () => {
    const bus = await open();
    const ids = await consume(bus, "billing");
    await bus.publish([record(1), record(2)]);
    await until(() => ids.length === 2, "two deliveries");
    await bus.close();

    const log = await readFile(join(dataDir, "topics", "orders", "00000000000000000000.jsonl"), "utf8");
    expect(log.split("\n")).to.deep.equal([JSON.stringify(record(1)), JSON.stringify(record(2)), ""]);
    // Compacted to the start position at subscribe, then one line per commit.
    expect(await readFile(join(dataDir, "groups", "billing", "orders.offsets"), "utf8")).to.equal(
      "0\n1\n2\n",
    );
  });

  it("deletes segments every known group has consumed and keeps what a slower group needs", async () => {
    // One byte per segment: every publish starts a new segment file.
    const bus = await open({ segmentBytes: 1, retainMs: 0 });
    const fast = await consume(bus, "fast");
    const slow: string[] = [];
    let slowLimit = 2;
    subscriptions.push(
      await bus.subscribe({
        group: "slow",
        topics: ["orders"],
        handler: async (r) => {
          await until(() => slow.length < slowLimit, "the slow group's turn", 10_000);
          slow.push(r.id);
        },
      }),
    );
    for (let n = 1; n <= 6; n += 1) await bus.publish([record(n)]);
    await until(() => fast.length === 6 && slow.length === 2, "fast at six, slow at two");

    // Retention runs after each commit, which follows the handler: poll the directory.
    await settlesTo(segments, [
      "00000000000000000002.jsonl",
      "00000000000000000003.jsonl",
      "00000000000000000004.jsonl",
      "00000000000000000005.jsonl",
    ]);

    slowLimit = 6;
    await until(() => slow.length === 6, "slow at six");
    await settlesTo(segments, ["00000000000000000005.jsonl"]);
    expect(slow).to.deep.equal(["evt-1", "evt-2", "evt-3", "evt-4", "evt-5", "evt-6"]);
  });

  it("keeps consumed segments for retainMs, so a group added later still sees them", async () => {
    const bus = await open({ segmentBytes: 1, retainMs: 60_000 });
    const early = await consume(bus, "early");
    for (let n = 1; n <= 3; n += 1) await bus.publish([record(n)]);
    await until(() => early.length === 3, "three deliveries");
    const late = await consume(bus, "late");
    await until(() => late.length === 3, "three deliveries to the late group");

    expect(late).to.deep.equal(["evt-1", "evt-2", "evt-3"]);
    expect(await segments()).to.deep.equal([
      "00000000000000000000.jsonl",
      "00000000000000000001.jsonl",
      "00000000000000000002.jsonl",
    ]);
  });

  it("reads old segments back after a restart, and a new group starts at the earliest kept record", async () => {
    const first = await open({ segmentBytes: 1, retainMs: 0 });
    for (let n = 1; n <= 6; n += 1) await first.publish([record(n)]);
    await first.close();
    const second = await open({ segmentBytes: 1, retainMs: 0 });
    const ids = await consume(second, "analytics");
    await until(() => ids.length === 6, "six deliveries");

    expect(ids).to.deep.equal(["evt-1", "evt-2", "evt-3", "evt-4", "evt-5", "evt-6"]);
    await settlesTo(segments, ["00000000000000000005.jsonl"]);
    const late = await consume(second, "late");
    await second.publish([record(7)]);
    await until(() => late.length === 2 && ids.length === 7, "deliveries of the last segment");
    expect(late).to.deep.equal(["evt-6", "evt-7"]);
  });

  it("drops a torn final line left by a crash and appends after it", async () => {
    const first = await open();
    await first.publish([record(1)]);
    await first.close();
    await appendFile(join(dataDir, "topics", "orders", "00000000000000000000.jsonl"), '{"id":"evt-2","ty');
    const second = await open();
    await second.publish([record(3)]);
    const ids = await consume(second, "billing");
    await until(() => ids.length === 2, "two deliveries");

    expect(ids).to.deep.equal(["evt-1", "evt-3"]);
    expect(logger.lines.map((line) => line.message)).to.deep.equal([
      "embedded bus: dropping the torn tail of a topic log",
    ]);
  });

  it("refuses a second bus on a data directory that is open, and reopens it once closed", async () => {
    const first = await open();
    let error: unknown;
    try {
      await open();
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.equal(`embedded bus: ${dataDir} is already open in this process`);

    await first.publish([record(1)]);
    await first.close();
    const second = await open();
    const ids = await consume(second, "billing");
    await until(() => ids.length === 1, "one delivery");
    expect(ids).to.deep.equal(["evt-1"]);
  });

  it("rejects malformed records and invalid names and writes nothing", async () => {
    const bus = await open();
    const missing = { ...record(1), data: undefined } as unknown as EventRecord;
    const failures: string[] = [];
    for (const attempt of [
      () => bus.publish([record(1), missing]),
      () => bus.publish([record(2, "../escape")]),
      () => bus.subscribe({ group: "a/b", topics: ["orders"], handler: () => Promise.resolve() }),
      () => bus.subscribe({ group: "billing", topics: [], handler: () => Promise.resolve() }),
    ]) {
      try {
        await attempt();
      } catch (caught) {
        failures.push((caught as Error).message);
      }
    }

    expect(failures).to.deep.equal([
      "publish: not an event record (a string field is missing)",
      'publish: invalid topic name "../escape"',
      'subscribe: invalid group name "a/b"',
      "subscribe: no topics",
    ]);
    expect((await readdir(dataDir)).sort()).to.deep.equal(["LOCK", "groups"]);
  });

  it("aborts the handler's signal when its subscription closes, and redelivers that record later", async () => {
    const bus = await open();
    let started = false;
    let aborted = false;
    const subscription = await bus.subscribe({
      group: "billing",
      topics: ["orders"],
      handler: (_record, signal) =>
        new Promise<void>((_resolve, reject) => {
          started = true;
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    });
    await bus.publish([record(1)]);
    await until(() => started, "the handler to start");
    await subscription.close();
    const ids = await consume(bus, "billing");
    await until(() => ids.length === 1, "the redelivery");

    expect(aborted).to.equal(true);
    expect(ids).to.deep.equal(["evt-1"]);
  });

  it("closes at once while a failing record waits for its redelivery, and hands it to the next subscription at once", async () => {
    const bus = await open({ redeliveryDelayMs: 60_000, maxRedeliveryDelayMs: 60_000 });
    let failures = 0;
    const failing = await bus.subscribe({
      group: "billing",
      topics: ["orders"],
      handler: () => {
        failures += 1;
        return Promise.reject(new Error("store unreachable"));
      },
    });
    await bus.publish([record(1)]);
    await until(() => failures === 1, "the failed delivery");
    const closing = performance.now();
    await failing.close();
    expect(performance.now() - closing).to.be.below(1_000);
    const reopened = performance.now();
    const ids = await consume(bus, "billing");
    await until(() => ids.length === 1, "the redelivery to the new subscription");

    expect(performance.now() - reopened).to.be.below(5_000);
    expect(ids).to.deep.equal(["evt-1"]);
    expect(failures).to.equal(1);
  });

  it("accepts the platform's pino logger as its logger", async () => {
    const bus = await open({ logger: pino({ level: "silent" }) });
    await bus.publish([record(1)]);
    const ids = await consume(bus, "billing");
    await until(() => ids.length === 1, "one delivery");
    expect(ids).to.deep.equal(["evt-1"]);
  });
});
