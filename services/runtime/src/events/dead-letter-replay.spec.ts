/**
 * Replaying dead letters (dead-letter-replay.ts) on both buses: the embedded bus in a folder of
 * this spec's, and real Kafka (KAFKA_BROKERS, or a private broker when unset), both through the
 * function and through the operator's command (`npm run events:replay -- <group>`, run as a
 * process on the bus's settings, with the platform's consumers stopped on the embedded bus).
 */
import { expect } from "chai";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startKafka, type KafkaInstance } from "../../../../scripts/infra/kafka.js";
import { untraced } from "../telemetry/telemetry.js";
import { eventually } from "../testing/eventually.js";
import { deadLetterTopic } from "./dead-letter-publisher.js";
import { replayDeadLetters, replayTopic } from "./dead-letter-replay.js";
import { createEmbeddedBus } from "./embedded-bus.js";
import type { EventBus, EventRecord, RecordBatch, Subscription } from "./event-bus.js";
import { startBatchConsumer, startConsumer } from "./event-consumer.js";
import type { EventLogger } from "./event-logger.js";
import { createKafkaBus } from "./kafka-bus.js";
import { PermanentEventError } from "./permanent-event-error.js";

const silent: EventLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const command = join(import.meta.dirname, "dead-letter-replay-main.ts");
const run = promisify(execFile);

interface BusUnderTest {
  /** Opens a bus on this suite's storage (again after the last one closed). */
  open(): Promise<EventBus>;
  /** What the replay command needs to open the same bus. */
  readonly env: Record<string, string>;
}

function replaySuite(name: string, prepare: () => Promise<{ bus: BusUnderTest; stop: () => Promise<void> }>) {
  describe(`replaying dead letters: ${name}`, function () {
    this.timeout(120_000);
    let target: BusUnderTest;
    let stop: () => Promise<void> = () => Promise.resolve();
    let buses: EventBus[] = [];
    let subscriptions: Subscription[] = [];
    let names: { topic: string; other: string; group: string; bystander: string };

    before(async function () {
      this.timeout(180_000);
      ({ bus: target, stop } = await prepare());
    });
    after(() => stop());
    beforeEach(() => {
      const suffix = randomUUID().slice(0, 8);
      names = {
        topic: `replay-${suffix}-events`,
        other: `replay-${suffix}-other`,
        group: `replay-${suffix}-group`,
        bystander: `replay-${suffix}-bystander`,
      };
    });
    afterEach(async () => {
      await Promise.allSettled(subscriptions.map((subscription) => subscription.close()));
      await Promise.allSettled(buses.map((bus) => bus.close()));
      subscriptions = [];
      buses = [];
    });

    async function open(): Promise<EventBus> {
      const bus = await target.open();
      buses.push(bus);
      return bus;
    }

    const record = (n: number, topic = names.topic): EventRecord => ({
      id: `${topic}/${n}`,
      type: "ORDER_PLACED",
      source: "/commerce/replay-test",
      time: "2024-05-01T10:00:00.000Z",
      subject: `order-${n}`,
      topic,
      data: JSON.stringify({ orderId: `order-${n}` }),
    });

    /**
     * The group under test: refuses the records `refused` names as unreadable while `broken`
     * (the bug a release later fixes), and keeps every record it handled, as handed over.
     */
    async function consumer(bus: EventBus, group: string, refused: Set<string>) {
      const state = { broken: true, handled: [] as EventRecord[] };
      subscriptions.push(
        await startConsumer(bus, {
          group,
          topics: [names.topic],
          logger: silent,
          telemetry: untraced,
          handler: (r) => {
            if (state.broken && refused.has(r.id))
              return Promise.reject(new PermanentEventError("unreadable"));
            state.handled.push(r);
            return Promise.resolve();
          },
        }),
      );
      return state;
    }

    async function parkedIn(bus: EventBus, group: string): Promise<bigint> {
      const lags = await bus.lag(`${group}.count-${randomUUID().slice(0, 4)}`, [deadLetterTopic(group)]);
      return lags.reduce((n, lag) => n + BigInt(lag.end) - BigInt(lag.start), 0n);
    }

    /** Waits until `group` has parked `count` records in all. */
    async function awaitParked(bus: EventBus, group: string, count: bigint): Promise<void> {
      await eventually(
        async () => ((await parkedIn(bus, group)) === count ? true : undefined),
        30_000,
        `${count} records parked by ${group}`,
      );
    }

    it("replays each dead letter once, to the group that parked it and no other, as it was first consumed", async () => {
      const bus = await open();
      const poison = record(1);
      const group = await consumer(bus, names.group, new Set([poison.id]));
      const bystander = await consumer(bus, names.bystander, new Set());
      bystander.broken = false;
      await bus.publish([poison, record(2)]);
      await eventually(
        async () =>
          group.handled.length === 1 && (await parkedIn(bus, names.group)) === 1n ? true : undefined,
        30_000,
        "one record handled and one parked",
      );
      await eventually(() => (bystander.handled.length === 2 ? true : undefined), 30_000, "the bystander");

      group.broken = false; // the fix is deployed
      const told: string[] = [];
      const first = await replayDeadLetters({ bus, group: names.group, onReplayed: (r) => told.push(r.id) });
      await eventually(() => (group.handled.length === 2 ? true : undefined), 30_000, "the replayed record");
      const again = await replayDeadLetters({ bus, group: names.group });

      expect(first.replayed).to.equal(1);
      expect(told).to.deep.equal([poison.id]);
      expect(again.replayed).to.equal(0);
      // As first consumed: from its own topic, without the dead-letter details.
      expect(group.handled[1]).to.deep.equal(poison);
      expect(group.handled.map((r) => r.id)).to.deep.equal([record(2).id, poison.id]);
      // The bystander handled the event the first time; the replay is not for it.
      expect(bystander.handled.map((r) => r.id)).to.have.members([poison.id, record(2).id]);
      expect(bystander.handled).to.have.length(2);
    });

    it("parks a replayed record that still can never be handled again, under its original topic", async () => {
      const bus = await open();
      const poison = record(1);
      const group = await consumer(bus, names.group, new Set([poison.id]));
      await bus.publish([poison]);
      await awaitParked(bus, names.group, 1n);

      expect((await replayDeadLetters({ bus, group: names.group })).replayed).to.equal(1);
      await awaitParked(bus, names.group, 2n);
      const parked: EventRecord[] = [];
      subscriptions.push(
        await bus.subscribe({
          group: names.bystander,
          topics: [deadLetterTopic(names.group)],
          handler: (r) => {
            parked.push(r);
            return Promise.resolve();
          },
        }),
      );
      await eventually(() => (parked.length === 2 ? true : undefined), 30_000, "both parked copies");

      expect(parked.map((r) => [r.id, r.deadLetter?.topic])).to.deep.equal([
        [poison.id, names.topic],
        [poison.id, names.topic],
      ]);
      expect(group.handled).to.deep.equal([]);
      // Parked again while the replay ran, it waited for the next replay instead of looping.
      group.broken = false;
      expect((await replayDeadLetters({ bus, group: names.group })).replayed).to.equal(1);
      await eventually(() => (group.handled.length === 1 ? true : undefined), 30_000, "the fixed group");
      expect(group.handled).to.deep.equal([poison]);
    });

    it("hands a batch consumer its replayed records in batches of their original topic", async () => {
      const bus = await open();
      const refused = new Set([record(1).id, record(2, names.other).id]);
      let broken = true;
      const batches: RecordBatch[] = [];
      subscriptions.push(
        await startBatchConsumer(bus, {
          group: names.group,
          topics: [names.topic, names.other],
          maxRecords: 10,
          maxWaitMs: 0,
          logger: silent,
          telemetry: untraced,
          handler: (batch) => {
            if (broken && batch.records.some((r) => refused.has(r.id)))
              return Promise.reject(new PermanentEventError("unreadable"));
            batches.push(batch);
            return Promise.resolve();
          },
        }),
      );
      await bus.publish([record(1)]);
      await bus.publish([record(2, names.other)]);
      await awaitParked(bus, names.group, 2n);
      broken = false;

      expect((await replayDeadLetters({ bus, group: names.group })).replayed).to.equal(2);
      await eventually(() => (batches.length >= 2 ? true : undefined), 30_000, "the replayed batches");
      const seen = batches.map((batch) => [batch.topic, batch.records.map((r) => [r.id, r.topic])]);
      expect(seen).to.have.deep.members([
        [names.topic, [[record(1).id, names.topic]]],
        [names.other, [[record(2, names.other).id, names.other]]],
      ]);
    });

    it("replays through the operator's command, on the bus the environment names", async () => {
      let bus = await open();
      const poison = record(1);
      const group = await consumer(bus, names.group, new Set([poison.id]));
      await bus.publish([poison]);
      await awaitParked(bus, names.group, 1n);
      // The consumers stop (on the embedded bus, the command needs the log to itself).
      for (const subscription of subscriptions.splice(0)) await subscription.close();
      await Promise.all(buses.splice(0).map((opened) => opened.close()));

      const replay = async (): Promise<string> =>
        (
          await run(process.execPath, ["--import", "tsx", command, names.group], {
            env: { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "warn", ...target.env },
          })
        ).stdout;
      const first = await replay();
      const second = await replay();
      bus = await open();
      const fixed = await consumer(bus, names.group, new Set());
      await eventually(() => (fixed.handled.length === 1 ? true : undefined), 30_000, "the replayed record");

      expect(first.split("\n")).to.deep.equal([
        `replayed ${poison.id} (ORDER_PLACED) from ${names.topic}, parked ${first.match(/parked (\S+):/)?.[1] ?? "?"}: unreadable`,
        `replayed 1 dead letter of ${names.group} to ${replayTopic(names.group)}`,
        "",
      ]);
      expect(second).to.equal(
        `${deadLetterTopic(names.group)} holds no dead letter that was not replayed already\n`,
      );
      expect(fixed.handled).to.deep.equal([poison]);
      expect(group.handled).to.deep.equal([]);
    });
  });
}

replaySuite("embedded bus", async () => {
  const dir = await mkdtemp(join(tmpdir(), "dead-letter-replay-"));
  return {
    bus: {
      open: () =>
        createEmbeddedBus({
          dataDir: join(dir, "events"),
          logger: silent,
          redeliveryDelayMs: 10,
          maxRedeliveryDelayMs: 500,
        }),
      env: { DATA_DIR: dir },
    },
    stop: () => rm(dir, { recursive: true, force: true }),
  };
});

replaySuite("Kafka", async () => {
  const dir = await mkdtemp(join(tmpdir(), "dead-letter-replay-kafka-"));
  const fromEnvironment = process.env["KAFKA_BROKERS"];
  let own: KafkaInstance | undefined;
  if (fromEnvironment === undefined || fromEnvironment === "")
    own = await startKafka({ dataDir: join(dir, "kafka") });
  const brokers = own?.brokers ?? fromEnvironment ?? "";
  return {
    bus: {
      open: () =>
        createKafkaBus({
          brokers: brokers.split(","),
          clientId: "dead-letter-replay-spec",
          logger: silent,
          topics: [],
          redeliveryDelayMs: 10,
          maxRedeliveryDelayMs: 500,
        }),
      env: { KAFKA_BROKERS: brokers, DATA_DIR: dir },
    },
    stop: async () => {
      await own?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
