/**
 * Stream processor throughput (issue 10): how fast the analytics processor works off a backlog
 * of events, into ClickHouse and into chDB.
 *
 *   - ClickHouse: the backlog is published onto a private Kafka with the runtime's Kafka bus,
 *     then the processor is started as its own process (processor-process.ts) on a ClickHouse
 *     database of its own; measured until its consumer group has no lag (the bus's `lag`,
 *     polled every 100 ms). Events/s from its listening line, and from its spawn (which adds
 *     the process start: tsx, the store's migration, the consumer joining its group); its CPU
 *     time from /proc.
 *   - chDB: the same backlog on the embedded bus (`openPlatformBus` on a scratch folder), the
 *     processor module run in this process on a chDB store under a scratch folder, as the
 *     embedded platform runs it; events/s from the module's start (its "ready"), and from opening the store
 *     (loading chDB and migrating included); this process's CPU time.
 *
 * The publish rate is measured apart (publishing is over when the processor starts).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { buildAnalyticsProcessor, processorGroup } from "@commerce/analytics/processor";
import { openAnalyticsStore } from "@commerce/runtime/analytics";
import {
  type EventBus,
  type EventRecord,
  eventTopics,
  createKafkaBus,
  openPlatformBus,
} from "@commerce/runtime/events";
import { createLogger } from "@commerce/runtime/logging";
import { createEmbeddedStoreProvider } from "@commerce/runtime/store";
import { systemClock } from "@commerce/runtime/time";
import { noTelemetry } from "@commerce/runtime/telemetry";
import { createRoutingTransport } from "@commerce/runtime/transport";
import { cpuMicros } from "./load.js";
import { startProcessorProcess } from "./processor-process.js";

/** Records per `publish`: large batches, each well under Kafka's 1 MB per partition. */
const publishChunk = 5_000;
const pollMs = 100;
/** How long the processor may take to drain the backlog before the run gives up. */
const drainTimeoutMs = 600_000;
// Errors only: KafkaJS warns while a topic it just created gets its leader, and retries.
const logger = createLogger("error", "analytics-bench");

/** Publishes `records` in order, in chunks; resolves with the events per second. */
async function publishAll(bus: EventBus, records: readonly EventRecord[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < records.length; i += publishChunk) {
    await bus.publish(records.slice(i, i + publishChunk));
  }
  return records.length / ((performance.now() - started) / 1000);
}

interface Drained {
  /** `performance.now()` when the group had no lag left, or when the run gave up. */
  readonly at: number;
  /** Records of the log the group has passed. */
  readonly consumed: bigint;
  readonly total: bigint;
}

/**
 * Polls the processor group's lag until it has passed every record the log holds now; throws
 * if `running` says the processor is gone.
 */
async function untilDrained(bus: EventBus, running: () => boolean = () => true): Promise<Drained> {
  const topics = eventTopics();
  const goal = await bus.lag(processorGroup, topics);
  const total = goal.reduce((n, p) => n + BigInt(p.end) - BigInt(p.start), 0n);
  const deadline = performance.now() + drainTimeoutMs;
  for (;;) {
    const now = await bus.lag(processorGroup, topics);
    const consumed = now.reduce((n, p) => n + BigInt(p.committed ?? p.start) - BigInt(p.start), 0n);
    const at = performance.now();
    if (consumed >= total || at > deadline) return { at, consumed, total };
    if (!running()) throw new Error(`the processor exited after ${consumed} of ${total} events`);
    await delay(pollMs);
  }
}

const rate = (events: number, ms: number): string =>
  `${Math.round(events / (ms / 1000)).toLocaleString("en-US")} events/s`;

/** Two moments a run is timed from: when the processor was ready, and an earlier one. */
interface RunStart {
  readonly readyAt: number;
  readonly earlierAt: number;
  /** What the earlier moment is, e.g. "spawn". */
  readonly earlier: string;
}

function drainedLine(label: string, drained: Drained, from: RunStart, target = ""): string {
  const events = Number(drained.total);
  const seconds = (since: number): string => `${((drained.at - since) / 1000).toFixed(1)} s`;
  const incomplete =
    drained.consumed >= drained.total
      ? ""
      : ` (INCOMPLETE: ${drained.consumed} of ${drained.total} events after ${drainTimeoutMs / 1000} s)`;
  return (
    `${label}: ${rate(events, drained.at - from.readyAt)} from ready${target}, ` +
    `${rate(events, drained.at - from.earlierAt)} from ${from.earlier}; ` +
    `${events.toLocaleString("en-US")} events drained in ${seconds(from.readyAt)} ` +
    `(${seconds(from.earlierAt)} from ${from.earlier})${incomplete}`
  );
}

export interface KafkaThroughputOptions {
  readonly backlog: readonly EventRecord[];
  readonly kafkaBrokers: string;
  /** The ClickHouse server's URL, without a path. */
  readonly clickHouseUrl: string;
  /** The ClickHouse server's process: its CPU time while the processor writes. */
  readonly clickHousePid: number;
  readonly scratch: string;
}

/** Backlog on Kafka → the processor process → ClickHouse. */
export async function benchKafkaThroughput(options: KafkaThroughputOptions): Promise<string[]> {
  const bus = await createKafkaBus({
    brokers: options.kafkaBrokers.split(","),
    clientId: "analytics-bench",
    logger,
  });
  try {
    const published = await publishAll(bus, options.backlog);
    const clickHouseBefore = cpuMicros(options.clickHousePid);
    const spawned = performance.now();
    const processor = await startProcessorProcess({
      kafkaBrokers: options.kafkaBrokers,
      clickHouseUrl: `${options.clickHouseUrl}/bench_throughput`,
      dataDir: join(options.scratch, `processor-${randomBytes(4).toString("hex")}`),
    });
    try {
      const cpuAtReady = cpuMicros(processor.pid);
      const drained = await untilDrained(bus, () => processor.running());
      const cpu = cpuMicros(processor.pid);
      const clickHouseCpu = cpuMicros(options.clickHousePid) - clickHouseBefore;
      const events = Number(drained.total);
      return [
        drainedLine(
          "processor throughput, Kafka → ClickHouse (own process)",
          drained,
          { readyAt: processor.readyAt, earlierAt: spawned, earlier: "spawn" },
          " (target >= 20,000)",
        ),
        `  processor CPU ${((cpu - cpuAtReady) / 1e6).toFixed(1)} s from ready ` +
          `(${((cpu - cpuAtReady) / events).toFixed(1)} µs/event), ${(cpu / 1e6).toFixed(1)} s from spawn; ` +
          `ClickHouse server CPU ${(clickHouseCpu / 1e6).toFixed(1)} s from spawn ` +
          `(${(clickHouseCpu / events).toFixed(1)} µs/event)`,
        `  published onto Kafka beforehand at ${Math.round(published).toLocaleString("en-US")} events/s ` +
          `(batches of ${publishChunk.toLocaleString("en-US")})`,
      ];
    } finally {
      await processor.stop();
    }
  } finally {
    await bus.close();
  }
}

export interface ChdbThroughputOptions {
  readonly backlog: readonly EventRecord[];
  readonly scratch: string;
}

/** Backlog on the embedded bus → the processor module in this process → chDB. */
export async function benchChdbThroughput(options: ChdbThroughputOptions): Promise<string[]> {
  const dir = join(options.scratch, "chdb-throughput");
  const bus = await openPlatformBus({
    infra: { kafkaBrokers: undefined, kafkaPartitions: 1 },
    dataDir: dir,
    clientId: "analytics-bench",
    logger,
  });
  const documents = createEmbeddedStoreProvider({ dataDir: join(dir, "documents") });
  try {
    const published = await publishAll(bus, options.backlog);
    const opened = performance.now();
    const cpuAtOpen = process.cpuUsage();
    const store = await openAnalyticsStore({ clickHouse: undefined, chdbDir: join(dir, "analytics") });
    try {
      const processor = await buildAnalyticsProcessor(
        {
          logger,
          store: await documents.open("commerce_analytics-processor"),
          bus,
          transport: createRoutingTransport(new Map()),
          clock: systemClock,
          telemetry: noTelemetry.forService("analytics-processor"),
        },
        { store },
      );
      const started = performance.now();
      const cpuAtStart = process.cpuUsage();
      await processor.start();
      try {
        const drained = await untilDrained(bus);
        const cpu = process.cpuUsage(cpuAtStart);
        const cpuFromOpen = process.cpuUsage(cpuAtOpen);
        const events = Number(drained.total);
        const micros = cpu.user + cpu.system;
        return [
          drainedLine("processor throughput, embedded bus → chDB (in process)", drained, {
            readyAt: started,
            earlierAt: opened,
            earlier: "opening chDB",
          }),
          `  bench process CPU ${(micros / 1e6).toFixed(1)} s from ready (${(micros / events).toFixed(1)} µs/event), ` +
            `${((cpuFromOpen.user + cpuFromOpen.system) / 1e6).toFixed(1)} s from opening chDB; ` +
            `published onto the embedded bus beforehand at ${Math.round(published).toLocaleString("en-US")} events/s`,
        ];
      } finally {
        await processor.stop();
      }
    } finally {
      await store.close();
    }
  } finally {
    await documents.close();
    await bus.close();
  }
}
