import { expect } from "chai";
import { Kafka, Partitioners, logLevel, type IHeaders } from "kafkajs";
import { consumerMetricsContract } from "../telemetry/consumer-metrics.contract.js";
import { untraced } from "../telemetry/telemetry.js";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { startKafka, type KafkaInstance } from "../../../../scripts/infra/kafka.js";
import { deadLetterTopic } from "./dead-letter-publisher.js";
import type { EventBus, EventRecord, Subscription } from "./event-bus.js";
import { eventBusContract } from "./event-bus.contract.js";
import { startConsumer } from "./event-consumer.js";
import type { EventLogger } from "./event-logger.js";
import { eventTopics } from "./event-topics.js";
import { createKafkaBus, type KafkaBusOptions } from "./kafka-bus.js";
import { PermanentEventError } from "./permanent-event-error.js";
import { retry } from "../resilience/retry.js";
import { eventually } from "../testing/eventually.js";
import { rejectionOf } from "../testing/rejection.js";

/**
 * Runs against the broker in KAFKA_BROKERS (the test runner's, or `npm run infra:up`'s), or else
 * against a private broker started here; it never skips. The restart test always starts its
 * own broker, since it stops it.
 */

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

async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(10);
  }
}

const unique = (label: string): string => `kafka-bus-${label}-${randomUUID().slice(0, 8)}`;

function event(n: number, topic: string, subject = "order-1"): EventRecord {
  return {
    id: `${topic}/${n}`,
    type: "ORDER_PLACED",
    source: "/commerce/kafka-bus-test",
    time: "2024-05-01T10:00:00.000Z",
    subject,
    topic,
    data: JSON.stringify({ orderId: subject, n }),
  };
}

interface RawRecord {
  readonly partition: number;
  readonly key: string | undefined;
  readonly value: string | undefined;
  readonly headers: Record<string, string>;
}

function headersAsText(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out[name] = value.toString();
  }
  return out;
}

describe("createKafkaBus", function () {
  this.timeout(60_000);
  let scratch: string;
  let ownBroker: KafkaInstance | undefined;
  let brokers: string[];
  let logger: ReturnType<typeof recordingLogger>;
  let buses: EventBus[];
  let subscriptions: Subscription[];
  let raw: Kafka;

  before(async function () {
    this.timeout(180_000);
    scratch = await mkdtemp(join(tmpdir(), "kafka-bus-"));
    const fromEnvironment = process.env["KAFKA_BROKERS"];
    if (fromEnvironment !== undefined && fromEnvironment !== "") {
      brokers = fromEnvironment.split(",").map((broker) => broker.trim());
    } else {
      ownBroker = await startKafka({ dataDir: join(scratch, "kafka") });
      brokers = [ownBroker.brokers];
    }
    raw = new Kafka({ clientId: "kafka-bus-spec", brokers, logLevel: logLevel.NOTHING });
  });

  after(async () => {
    await ownBroker?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  beforeEach(() => {
    logger = recordingLogger();
    buses = [];
    subscriptions = [];
  });

  afterEach(async () => {
    await Promise.allSettled(subscriptions.map((subscription) => subscription.close()));
    await Promise.allSettled(buses.map((bus) => bus.close()));
  });

  async function open(options: Partial<KafkaBusOptions> = {}): Promise<EventBus> {
    const bus = await createKafkaBus({
      brokers,
      clientId: "kafka-bus-spec",
      logger,
      redeliveryDelayMs: 10,
      maxRedeliveryDelayMs: 500,
      topics: [],
      ...options,
    });
    buses.push(bus);
    return bus;
  }

  async function collect(bus: EventBus, group: string, topics: readonly string[]): Promise<EventRecord[]> {
    const records: EventRecord[] = [];
    subscriptions.push(
      await bus.subscribe({
        group,
        topics,
        handler: (record) => {
          records.push(record);
          return Promise.resolve();
        },
      }),
    );
    return records;
  }

  /**
   * Reads every record `topic` holds now with a plain KafkaJS consumer, each once (a consumer
   * group may redeliver while its first generation settles).
   */
  async function readRaw(topic: string): Promise<RawRecord[]> {
    const admin = raw.admin();
    await admin.connect();
    let total: number;
    try {
      // A topic made a moment ago may not have its leader known to every broker yet: KafkaJS
      // says so with a retriable error (NOT_LEADER_FOR_PARTITION), as its own clients retry.
      const offsets = await retry(() => admin.fetchTopicOffsets(topic), {
        maxAttempts: 10,
        backoff: { initialMs: 100, maxMs: 1_000, jitter: "full" },
        retryable: (error) => (error as { retriable?: unknown }).retriable === true,
      });
      total = offsets.reduce((sum, { high, low }) => sum + Number(high) - Number(low), 0);
    } finally {
      await admin.disconnect();
    }
    const consumer = raw.consumer({ groupId: unique("raw"), maxWaitTimeInMs: 500 });
    const records = new Map<string, RawRecord>();
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachMessage: ({ partition, message }) => {
          records.set(`${partition}/${message.offset}`, {
            partition,
            key: message.key?.toString(),
            value: message.value?.toString(),
            headers: headersAsText(message.headers),
          });
          return Promise.resolve();
        },
      });
      await until(() => records.size >= total, `${total} raw records`);
    } finally {
      await consumer.disconnect();
    }
    return [...records.values()];
  }

  async function partitionsOf(topic: string): Promise<number> {
    const admin = raw.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      return topics[0]?.partitions.length ?? 0;
    } finally {
      await admin.disconnect();
    }
  }

  describe("EventBus contract", () => {
    // Three partitions per topic, as in production: the contract promises per-key order only.
    eventBusContract({
      open: () =>
        createKafkaBus({
          brokers,
          clientId: "kafka-bus-contract",
          logger,
          redeliveryDelayMs: 10,
          maxRedeliveryDelayMs: 500,
          partitions: 3,
          topics: [],
        }),
      deliveryTimeoutMs: 15_000,
    });
  });

  describe("consumer metrics", () => {
    // Lag from the group's committed offsets and the partitions' high watermarks.
    consumerMetricsContract(() => open({ partitions: 3 }), 15_000);
  });

  it("creates the configured topics at start, and others when first used, with the configured partitions", async () => {
    const configured = unique("configured");
    const published = unique("published");
    const subscribed = unique("subscribed");
    const bus = await open({ topics: [configured], partitions: 2 });
    expect(await partitionsOf(configured)).to.equal(2);

    await bus.publish([event(1, published)]);
    await collect(bus, unique("group"), [subscribed]);

    expect(await partitionsOf(published)).to.equal(2);
    expect(await partitionsOf(subscribed)).to.equal(2);
  });

  it("creates the four event topics of the contract by default", async () => {
    expect(eventTopics()).to.deep.equal(["auth-events", "order-events", "payment-events", "product-events"]);
    buses.push(await createKafkaBus({ brokers, clientId: "kafka-bus-spec", logger }));
    const admin = raw.admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).to.include.members(eventTopics());
    } finally {
      await admin.disconnect();
    }
  });

  it("writes the subject as key, the payload as value and the CloudEvents attributes as headers", async () => {
    const topic = unique("wire");
    const bus = await open();
    const traced: EventRecord = {
      ...event(1, topic, "order-42"),
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "vendor=abc",
    };
    const parked: EventRecord = {
      ...event(2, topic, "order-43"),
      deadLetter: {
        group: "billing",
        topic: "order-events",
        error: "boom",
        time: "2024-05-01T10:00:05.000Z",
      },
    };
    await bus.publish([traced, parked]);
    const records = await readRaw(topic);
    const bySubject = (key: string) => records.find((r) => r.key === key);

    expect(bySubject("order-42")).to.deep.include({
      key: "order-42",
      value: traced.data,
      headers: {
        ce_specversion: "1.0",
        ce_id: traced.id,
        ce_type: "ORDER_PLACED",
        ce_source: "/commerce/kafka-bus-test",
        ce_time: "2024-05-01T10:00:00.000Z",
        ce_subject: "order-42",
        "content-type": "application/json",
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        tracestate: "vendor=abc",
      },
    });
    expect(bySubject("order-43")?.headers).to.deep.include({
      ce_id: parked.id,
      dead_letter_group: "billing",
      dead_letter_topic: "order-events",
      dead_letter_error: "boom",
      dead_letter_time: "2024-05-01T10:00:05.000Z",
    });
    expect(bySubject("order-43")?.headers).not.to.have.property("traceparent");
  });

  it("hands back the trace context and dead-letter details it was given", async () => {
    const topic = unique("roundtrip");
    const bus = await open();
    const record: EventRecord = {
      ...event(1, topic),
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      tracestate: "vendor=abc",
      deadLetter: {
        group: "billing",
        topic: "order-events",
        error: "boom",
        time: "2024-05-01T10:00:05.000Z",
      },
    };
    await bus.publish([record]);
    const seen = await collect(bus, unique("group"), [topic]);
    await until(() => seen.length === 1, "one delivery");

    expect(seen).to.deep.equal([record]);
  });

  it("parks a record the services' consumer gives up on in <group>.dead-letter, and moves on", async () => {
    const topic = unique("poison");
    const group = unique("group");
    const bus = await open({ topics: [topic] });
    const handled: string[] = [];
    subscriptions.push(
      await startConsumer(bus, {
        group,
        topics: [topic],
        logger,
        telemetry: untraced,
        handler: (record) => {
          if (record.id === event(1, topic).id)
            return Promise.reject(new PermanentEventError("unreadable payload"));
          handled.push(record.id);
          return Promise.resolve();
        },
      }),
    );
    await bus.publish([event(1, topic), event(2, topic)]);
    await until(() => handled.length === 1, "the record after the poison one");
    const [parked] = await readRaw(deadLetterTopic(group));

    expect(handled).to.deep.equal([event(2, topic).id]);
    expect(parked?.key).to.equal("order-1");
    expect(parked?.value).to.equal(event(1, topic).data);
    expect(parked?.headers).to.deep.include({
      ce_id: event(1, topic).id,
      ce_type: "ORDER_PLACED",
      dead_letter_group: group,
      dead_letter_topic: topic,
      dead_letter_error: "unreadable payload",
    });
    expect(parked?.headers["dead_letter_time"]).to.match(/^\d{4}-\d\d-\d\dT/);
  });

  it("reads events written by another producer, and skips and logs records that are not events", async () => {
    const topic = unique("foreign");
    const bus = await open({ topics: [topic] });
    const producer = raw.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      await producer.send({
        topic,
        messages: [
          { key: "order-7", value: "not an event", headers: { "content-type": "text/plain" } },
          {
            key: "order-7",
            value: '{"orderId":"order-7"}',
            headers: {
              ce_specversion: "1.0",
              ce_id: "evt-7",
              ce_type: "ORDER_PLACED",
              ce_source: "/elsewhere",
              ce_time: "2024-05-01T10:00:00Z",
            },
          },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    const seen = await collect(bus, unique("group"), [topic]);
    await until(() => seen.length === 1, "the event");

    expect(seen).to.deep.equal([
      {
        id: "evt-7",
        type: "ORDER_PLACED",
        source: "/elsewhere",
        time: "2024-05-01T10:00:00Z",
        subject: "order-7",
        topic,
        data: '{"orderId":"order-7"}',
      },
    ]);
    const skipped = logger.lines.filter((line) => line.message.includes("not a CloudEvents event"));
    expect(skipped).to.have.length(1);
    expect(skipped[0]?.fields).to.deep.include({ topic, reason: 'ce_specversion is undefined, not "1.0"' });
  });

  it("rejects a publish whose signal is aborted, and invalid names, without writing anything", async () => {
    const topic = unique("refused");
    const bus = await open();
    const aborted = AbortSignal.abort(new Error("caller gave up"));
    const messages = [
      (await rejectionOf(bus.publish([event(1, topic)], aborted))) as Error,
      (await rejectionOf(bus.publish([event(2, "bad/topic")]))) as Error,
      (await rejectionOf(
        bus.subscribe({ group: "a b", topics: [topic], handler: () => Promise.resolve() }),
      )) as Error,
      (await rejectionOf(
        bus.subscribe({ group: unique("g"), topics: [], handler: () => Promise.resolve() }),
      )) as Error,
    ].map((error) => error.message);

    expect(messages).to.deep.equal([
      "caller gave up",
      'publish: invalid topic name "bad/topic"',
      'invalid group name "a b"',
      "subscribe: no topics",
    ]);
    const admin = raw.admin();
    await admin.connect();
    try {
      expect(await admin.listTopics()).not.to.include(topic);
    } finally {
      await admin.disconnect();
    }
  });

  it("keeps consuming other partitions while a record keeps failing, and holds back its own", async function () {
    // Generous deadlines: on a busy machine a consumer-group rebalance can cost a session
    // timeout (10 s); a bus that stalls the other partitions never delivers at all.
    this.timeout(150_000);
    const topic = unique("blocked");
    const bus = await open({ topics: [topic], partitions: 3 });
    const keys = Array.from({ length: 12 }, (_, i) => `order-${i}`);
    await bus.publish(keys.map((key, i) => event(i, topic, key)));
    const partitionOf = new Map((await readRaw(topic)).map((r) => [r.key, r.partition]));
    const blocked = partitionOf.get("order-0");
    const free = keys.filter((key) => partitionOf.get(key) !== blocked);
    const heldBack = keys.filter((key) => key !== "order-0" && partitionOf.get(key) === blocked);
    expect(free, "keys on other partitions").not.to.be.empty;

    let released = false;
    // First deliveries only: delivery is at least once, and a pause/seek on one partition may
    // legitimately hand a record of another partition over again.
    const delivered: EventRecord[] = [];
    const seen = new Set<string>();
    const subjects = (): string[] => delivered.map((record) => record.subject);
    subscriptions.push(
      await bus.subscribe({
        group: unique("group"),
        topics: [topic],
        handler: (record) => {
          if (record.subject === "order-0" && !released) return Promise.reject(new Error("not yet"));
          if (!seen.has(record.id)) {
            seen.add(record.id);
            delivered.push(record);
          }
          return Promise.resolve();
        },
      }),
    );
    await until(
      () => free.every((key) => subjects().includes(key)),
      "every key of the other partitions",
      45_000,
    );
    // Published while order-0 keeps failing: its partition is paused, the others are fetched.
    await bus.publish(free.map((key, i) => event(100 + i, topic, key)));
    await until(
      () => delivered.length >= 2 * free.length,
      "the later records of the other partitions",
      45_000,
    );

    expect(subjects()).not.to.include("order-0");
    expect(subjects().filter((key) => heldBack.includes(key))).to.be.empty;
    released = true;
    await until(() => delivered.length === 2 * free.length + 1 + heldBack.length, "every record", 45_000);
    expect(subjects().filter((key) => partitionOf.get(key) === blocked)).to.deep.equal([
      "order-0",
      ...heldBack,
    ]);
  });

  it("closes at once while a failing record waits for its redelivery, which the group's next member gets", async function () {
    // Generous: the next member joins the group after the first one left (a rebalance).
    this.timeout(90_000);
    const topic = unique("paused");
    const group = unique("group");
    const first = await open({ topics: [topic], redeliveryDelayMs: 60_000, maxRedeliveryDelayMs: 60_000 });
    let failures = 0;
    const failing = await first.subscribe({
      group,
      topics: [topic],
      handler: () => {
        failures += 1;
        return Promise.reject(new Error("store unreachable"));
      },
    });
    subscriptions.push(failing);
    await first.publish([event(1, topic)]);
    await until(() => failures === 1, "the failed delivery", 30_000);
    const closing = performance.now();
    await failing.close();
    expect(performance.now() - closing).to.be.below(5_000);
    const seen = await collect(await open(), group, [topic]);
    await until(() => seen.length >= 1, "the redelivery to the next member", 45_000);

    expect(seen.map((record) => record.id)).to.deep.equal([event(1, topic).id]);
    expect(failures).to.equal(1);
  });

  it("loses nothing when the broker restarts: publishing fails meanwhile, consuming resumes after", async function () {
    this.timeout(180_000);
    const dataDir = join(scratch, `restart-${randomUUID().slice(0, 8)}`);
    let broker = await startKafka({ dataDir });
    try {
      const topic = unique("restart");
      const bus = await createKafkaBus({
        brokers: [broker.brokers],
        clientId: "kafka-bus-restart",
        logger,
        redeliveryDelayMs: 10,
        maxRedeliveryDelayMs: 500,
        topics: [topic],
      });
      buses.push(bus);
      const seen = await collect(bus, unique("group"), [topic]);
      const keys = ["order-a", "order-b", "order-c"];
      const batch = (from: number, to: number): EventRecord[] =>
        Array.from({ length: to - from + 1 }, (_, i) =>
          event(from + i, topic, keys[(from + i) % keys.length]),
        );

      await bus.publish(batch(1, 6));
      await until(() => seen.length === 6, "the first six deliveries");
      expect(await bus.ping()).to.equal(true);

      await broker.stop();
      const during = await rejectionOf(bus.publish(batch(7, 9), AbortSignal.timeout(3_000)));
      expect(during).to.be.instanceOf(Error);
      // Readiness: no broker answers, and the ping says so within its 3 s.
      const pinged = performance.now();
      expect(await bus.ping()).to.equal(false);
      expect(performance.now() - pinged).to.be.below(4_000);

      broker = await startKafka({ dataDir, port: broker.port });
      // What the outbox relay does: publish again until the bus accepts.
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          await bus.publish(batch(7, 12), AbortSignal.timeout(10_000));
          break;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await delay(500);
        }
      }
      const ids = (): Set<string> => new Set(seen.map((record) => record.id));
      await until(() => ids().size === 12, "all twelve events after the restart", 90_000);
      expect(
        await eventually(async () => ((await bus.ping()) ? true : undefined), 30_000, "a ping"),
      ).to.equal(true);

      expect([...ids()].sort()).to.deep.equal(
        batch(1, 12)
          .map((record) => record.id)
          .sort(),
      );
      // Per key, first deliveries come in publish order (redeliveries may repeat an id).
      for (const key of keys) {
        const firsts = [...new Set(seen.filter((r) => r.subject === key).map((r) => r.id))];
        const published = batch(1, 12)
          .filter((r) => r.subject === key)
          .map((r) => r.id);
        expect(firsts, key).to.deep.equal(published);
      }
    } finally {
      await Promise.allSettled(subscriptions.splice(0).map((subscription) => subscription.close()));
      await Promise.allSettled(buses.splice(0).map((bus) => bus.close()));
      await broker.stop();
    }
  });
});
