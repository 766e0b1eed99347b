/**
 * The Kafka adapter of the event-bus port (ADR 0038), on KafkaJS 2.2.4. Every KafkaJS call
 * of the services is in this file, so swapping the client (KafkaJS is in maintenance mode)
 * touches nothing else; the wire format is in kafka-records.ts, without client types. A flaw of
 * KafkaJS's request queue (a timer every millisecond per connection) is corrected before the
 * client is made (kafkajs-request-queue.ts).
 *
 * Topics. Created at start if missing (the contract's four by default, `partitions` each, 3 by
 * default), and any other topic the first time it is published to or subscribed to, such as
 * `<group>.dead-letter`. Brokers run with `auto.create.topics.enable=false`, so a topic exists
 * because this adapter created it with the intended partition count.
 *
 * Publishing. Key = subject (one aggregate's events share a partition and keep their order),
 * value = the protobuf JSON payload, CloudEvents attributes in headers. `acks: -1`: `publish`
 * resolves once every in-sync replica has the records. Choices:
 *   - the Java-compatible murmur2 partitioner (KafkaJS's default since 2.0, passed explicitly):
 *     a key lands on the same partition as from any Java or librdkafka producer;
 *   - no idempotent producer: KafkaJS marks it experimental (ADR 0038), and delivery is
 *     at-least-once anyway (the outbox republishes after a crash, consumers dedupe by event
 *     id). Instead one request in flight per broker: a retried batch can then be duplicated,
 *     but never overtaken by a later one, so per-key order holds through retries.
 * KafkaJS's `send` takes no abort signal; `publish` stops waiting when its signal aborts (the
 * send may still complete: the caller keeps the records and republishes, consumers dedupe).
 *
 * Consuming. One KafkaJS consumer per subscription, in the subscription's group; a new group
 * starts from the earliest record. Auto-commit is off: a record's offset is committed only
 * after its handler resolved (at-least-once; per-partition order, hence per-key order). A
 * failed record is delivered again, without limit, after a pause that grows from
 * `redeliveryDelayMs` to `maxRedeliveryDelayMs` (blocked-partitions.ts); its partition is paused
 * meanwhile, holding the later records back, while the member keeps fetching its other
 * partitions and heart-beating, so it keeps its place in the group however long the record
 * fails. A rebalance that moves the partition away lets its new owner start from the committed
 * offset: the record comes again there, nothing is skipped. Taking a record that can never
 * succeed off the partition is the consumer's business (dead-lettering-handler.ts). The
 * partitions of one fetch are handled concurrently, so a handler can run for records of
 * different partitions at once, as the embedded bus runs different topics at once. KafkaJS
 * fetches again only once every partition of the previous fetch is done, so a handler that
 * takes long delays the other partitions of its broker as well, not only its own.
 *
 * Batches (`subscribeBatch`) come from the same fetches: a partition's fetched records are cut
 * into batches of at most `maxRecords`, each handed over whole; after the handler resolved, the
 * batch's last offset is resolved and committed before the next batch of that partition. A failed
 * batch is redelivered from its first record like a failed record. A fetch that brings fewer
 * than `maxRecords` records and reaches the end of the partition pauses the partition until
 * `maxWaitMs` after the fetch that first brought the batch's first record, so more records can
 * join; a redelivery does not wait again. A plain subscription is one whose batches hold one
 * record.
 *
 * A consumer that crashed (KafkaJS gives up after its retries, e.g. when the broker stays away
 * for more than about 20 s) is restarted here, every time: KafkaJS would restart it itself only
 * after errors it deems retriable, and losing the group coordinator is not one of them. So a
 * Kafka outage delays consumption and never ends it.
 */
import {
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type KafkaMessage,
  type LogEntry,
  type Producer,
} from "kafkajs";
import { setTimeout as delay } from "node:timers/promises";
import type { Backoff } from "../resilience/backoff.js";
import { retry } from "../resilience/retry.js";
import { pino } from "pino";
import type {
  BatchHandler,
  BatchSubscriptionOptions,
  EventBus,
  EventRecord,
  PartitionLag,
  Subscription,
  SubscriptionOptions,
} from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import { eventTopics } from "./event-topics.js";
import { fromKafkaMessage, toKafkaMessage } from "./kafka-records.js";
import { correctKafkaJsRequestQueue } from "./kafkajs-request-queue.js";
import { assertBatchBounds, assertBusName, groupByTopic } from "./publish-batch.js";
import {
  BlockedPartitions,
  redeliveryBackoff,
  type BlockedPartition,
  type RedeliveryOptions,
} from "./blocked-partitions.js";

/** How to reach the cluster and how the bus shapes the topics it creates. */
export interface KafkaBusOptions extends RedeliveryOptions {
  /** Bootstrap brokers, `host:port` each (`KAFKA_BROKERS` split at commas). */
  readonly brokers: readonly string[];
  /** Names this client in broker logs and metrics, e.g. the service's name. */
  readonly clientId: string;
  readonly logger?: EventLogger;
  /** Partitions of every topic this bus creates (default 3). Existing topics keep theirs. */
  readonly partitions?: number;
  /** Topics to create at start if missing (default: every event topic of the contract). */
  readonly topics?: readonly string[];
}

const defaultPartitions = 3;
/** KafkaJS's default bytes per partition in a fetch, and our allowance per record of a batch. */
const defaultFetchBytes = 1_048_576;
const fetchBytesPerRecord = 1_024;
/**
 * Consumer timing. A member heart-beats every second and is evicted after 10 s of silence; an
 * idle fetch waits at most 500 ms (closing a subscription waits for the fetch in flight).
 * Short values make joins, leaves and rebalances take about a second instead of KafkaJS's
 * 3-5 s defaults, for a few more requests per idle consumer.
 */
const sessionTimeoutMs = 10_000;
const heartbeatIntervalMs = 1_000;
const maxWaitTimeMs = 500;
/** Pause before restarting a crashed consumer. */
const restartDelayMs = 2_000;
/** Longest wait for a new topic's partitions to get leaders. */
const topicReadyTimeoutMs = 30_000;
/** How long a readiness ping waits for a broker's answer. */
const pingTimeoutMs = 3_000;
/** Upper bound of partitions one subscription consumes at once. */
const maxConcurrency = 16;
/**
 * Client retries: exponential from 200 ms, capped at 5 s, 8 retries (about 20 s in all). A
 * `publish` during an outage fails after that; the outbox relay tries again later.
 */
const clientRetry = { initialRetryTime: 200, maxRetryTime: 5_000, retries: 8 };

/** Kafka's legal topic characters and length; groups follow it so `<group>.dead-letter` is legal. */

/** Opens the bus: connects, and creates the configured topics that are missing. */
export async function createKafkaBus(options: KafkaBusOptions): Promise<EventBus> {
  const partitions = options.partitions ?? defaultPartitions;
  if (options.brokers.length === 0) throw new RangeError("brokers must name at least one broker");
  if (!Number.isSafeInteger(partitions) || partitions < 1) {
    throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
  }
  const redelivery = redeliveryBackoff(options);
  const topics = options.topics ?? eventTopics();
  for (const topic of topics) assertBusName("topic", topic);
  const logger = options.logger ?? pino({ name: "kafka-bus" });

  correctKafkaJsRequestQueue();
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    retry: clientRetry,
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      forwardLog(logger, entry);
    },
  });
  const admin = kafka.admin();
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: false,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  try {
    await admin.connect();
    await producer.connect();
    const bus = new KafkaBus({ kafka, admin, producer, logger, partitions, redelivery });
    await bus.ensureTopics(topics);
    return bus;
  } catch (error) {
    await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    throw error;
  }
}

/**
 * KafkaJS's warnings and errors, into the platform's logger, all as warnings: KafkaJS logs each
 * failed connection attempt as an error, so an outage floods the log with expected failures.
 * What needs attention (a consumer that stopped, a failed publish) is the adapter's or its
 * caller's own error line.
 */
function forwardLog(logger: EventLogger, entry: LogEntry): void {
  const fields = Object.fromEntries(
    Object.entries(entry.log).filter(([key]) => key !== "message" && key !== "timestamp"),
  );
  const line = { ...fields, kafkajs: entry.namespace };
  if (entry.level === logLevel.ERROR || entry.level === logLevel.WARN) {
    logger.warn(line, `kafkajs: ${entry.log.message}`);
  }
}

/** Waits for `work`, or rejects with the signal's reason as soon as it aborts. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      signal.removeEventListener("abort", onAbort);
    });
  });
}

interface BusParts {
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly producer: Producer;
  readonly logger: EventLogger;
  readonly partitions: number;
  readonly redelivery: Backoff;
}

class KafkaBus implements EventBus {
  readonly messagingSystem = "kafka";
  readonly #parts: BusParts;
  /** Topics known to exist (or being created), so each is created at most once per bus. */
  readonly #topics = new Map<string, Promise<void>>();
  readonly #subscriptions = new Set<KafkaSubscription>();
  readonly #publishing = new Set<Promise<void>>();
  #closed = false;
  #closing: Promise<void> | undefined;
  /** The ping in flight: one at a time, however long KafkaJS's own retries keep it. */
  #pinging: Promise<boolean> | undefined;

  constructor(parts: BusParts) {
    this.#parts = parts;
  }

  /** A broker's answer to a metadata request (`describeCluster`) within `pingTimeoutMs`. */
  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    this.#pinging ??= this.#parts.admin.describeCluster().then(
      () => true,
      () => false,
    );
    const pinging = this.#pinging;
    void pinging.finally(() => {
      if (this.#pinging === pinging) this.#pinging = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), pingTimeoutMs);
    });
    try {
      return await Promise.race([pinging, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async publish(records: readonly EventRecord[], signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new Error("the Kafka event bus is closed");
    signal?.throwIfAborted();
    const byTopic = groupByTopic(records);
    if (byTopic.size === 0) return;
    const sending = this.#send(byTopic);
    this.#publishing.add(sending);
    // Settled here too: after an abort nobody else awaits it.
    void sending
      .catch(() => undefined)
      .finally(() => {
        this.#publishing.delete(sending);
      });
    await unlessAborted(sending, signal);
  }

  async #send(byTopic: ReadonlyMap<string, readonly EventRecord[]>): Promise<void> {
    await this.ensureTopics([...byTopic.keys()]);
    await this.#parts.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, batch]) => ({
        topic,
        messages: batch.map((record) => {
          const { key, value, headers } = toKafkaMessage(record);
          return { key, value, headers: { ...headers } };
        }),
      })),
    });
  }

  subscribe(options: SubscriptionOptions): Promise<Subscription> {
    const { handler } = options;
    // One record a batch, so the batch path below is the only delivery path.
    return this.#join("subscribe", options.group, options.topics, {
      maxRecords: 1,
      maxWaitMs: 0,
      handler: async (batch, signal) => {
        for (const record of batch.records) await handler(record, signal);
      },
    });
  }

  subscribeBatch(options: BatchSubscriptionOptions): Promise<Subscription> {
    const { maxRecords, maxWaitMs, handler } = options;
    assertBatchBounds(maxRecords, maxWaitMs);
    return this.#join("subscribeBatch", options.group, options.topics, { maxRecords, maxWaitMs, handler });
  }

  async #join(
    operation: string,
    group: string,
    topicList: readonly string[],
    delivery: BatchDelivery,
  ): Promise<Subscription> {
    if (this.#closed) throw new Error("the Kafka event bus is closed");
    assertBusName("group", group);
    if (topicList.length === 0) throw new TypeError(`${operation}: no topics`);
    const topics = [...new Set(topicList)];
    for (const topic of topics) assertBusName("topic", topic);
    await this.ensureTopics(topics);

    const subscription = new KafkaSubscription({
      consumer: this.#parts.kafka.consumer({
        groupId: group,
        sessionTimeout: sessionTimeoutMs,
        heartbeatInterval: heartbeatIntervalMs,
        maxWaitTimeInMs: maxWaitTimeMs,
        // A fetch brings up to a full batch of a partition (records are well under 1 KiB), not
        // KafkaJS's default 1 MiB: a batch consumer pays per batch, not per record.
        maxBytesPerPartition: Math.max(defaultFetchBytes, delivery.maxRecords * fetchBytesPerRecord),
        allowAutoTopicCreation: false,
        // Restarts are ours, after any crash (see `KafkaSubscription`).
        retry: { ...clientRetry, restartOnFailure: () => Promise.resolve(false) },
      }),
      group,
      topics,
      ...delivery,
      logger: this.#parts.logger,
      redelivery: this.#parts.redelivery,
      concurrency: Math.min(maxConcurrency, topics.length * this.#parts.partitions),
    });
    this.#subscriptions.add(subscription);
    const forget = (): void => {
      this.#subscriptions.delete(subscription);
    };
    try {
      await subscription.start();
    } catch (error) {
      await subscription.close().finally(forget);
      throw error;
    }
    return { close: () => subscription.close().finally(forget), blocked: () => subscription.blocked() };
  }

  async lag(group: string, topicList: readonly string[]): Promise<PartitionLag[]> {
    if (this.#closed) throw new Error("the Kafka event bus is closed");
    assertBusName("group", group);
    const topics = [...new Set(topicList)];
    for (const topic of topics) assertBusName("topic", topic);
    await this.ensureTopics(topics);
    const { admin } = this.#parts;
    const committed = await admin.fetchOffsets({ groupId: group, topics });
    const lags: PartitionLag[] = [];
    for (const topic of topics) {
      const positions = committed.find((entry) => entry.topic === topic)?.partitions ?? [];
      for (const { partition, low, high } of await this.#topicOffsets(topic)) {
        // Kafka answers -1 for a partition the group has committed nothing on.
        const offset = positions.find((entry) => entry.partition === partition)?.offset;
        lags.push({
          topic,
          partition,
          start: low,
          end: high,
          committed: offset === undefined || offset === "-1" ? undefined : offset,
        });
      }
    }
    return lags.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  }

  /**
   * The partitions' earliest and next offsets. A partition whose leader was elected a moment ago
   * may still refuse the request (NOT_LEADER_FOR_PARTITION, retriable): asked again shortly.
   */
  #topicOffsets(topic: string): Promise<{ partition: number; low: string; high: string }[]> {
    return retry(() => this.#parts.admin.fetchTopicOffsets(topic), {
      maxAttempts: Infinity,
      deadlineMs: topicReadyTimeoutMs,
      backoff: { initialMs: 100, maxMs: 100, jitter: "none" },
      retryable: (error) => (error as { retriable?: boolean }).retriable === true,
    });
  }

  async deleteGroup(group: string): Promise<void> {
    if (this.#closed) throw new Error("the Kafka event bus is closed");
    assertBusName("group", group);
    try {
      await this.#parts.admin.deleteGroups([group]);
    } catch (error) {
      // A group the broker does not know (never used, or already deleted) is what was asked for.
      const results = (error as { groups?: readonly { error?: { type?: string } }[] }).groups ?? [];
      if (results.length > 0 && results.every((result) => result.error?.type === "GROUP_ID_NOT_FOUND"))
        return;
      throw error;
    }
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#subscriptions].map((subscription) => subscription.close()));
      await Promise.allSettled(this.#publishing);
      await Promise.allSettled([this.#parts.producer.disconnect(), this.#parts.admin.disconnect()]);
    })();
    return this.#closing;
  }

  /** Creates the topics that do not exist yet, with the bus's partition count. */
  async ensureTopics(topics: readonly string[]): Promise<void> {
    await Promise.all(topics.map((topic) => this.#ensureTopic(topic)));
  }

  #ensureTopic(topic: string): Promise<void> {
    let ensured = this.#topics.get(topic);
    if (ensured === undefined) {
      const creating = this.#createTopic(topic);
      // A failed attempt is forgotten, so the next publish or subscribe tries again.
      void creating.catch(() => {
        if (this.#topics.get(topic) === creating) this.#topics.delete(topic);
      });
      this.#topics.set(topic, creating);
      ensured = creating;
    }
    return ensured;
  }

  /**
   * Creates the topic unless it exists, then waits until every partition has a leader, so the
   * first send or subscription finds it. The wait is ours: KafkaJS's `waitForLeaders` gives up
   * when the broker's metadata does not list a topic created a moment ago, which happens on a
   * busy machine.
   */
  async #createTopic(topic: string): Promise<void> {
    const { admin, partitions } = this.#parts;
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: false });
    const deadline = Date.now() + topicReadyTimeoutMs;
    for (;;) {
      try {
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        const found = topics.find((candidate) => candidate.name === topic)?.partitions ?? [];
        if (found.length > 0 && found.every((partition) => partition.leader >= 0)) return;
      } catch (error) {
        if (!isMetadataLag(error) || Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline)
        throw new Error(`topic ${topic} has no leader after ${topicReadyTimeoutMs} ms`);
      await delay(50);
    }
  }
}

/** Errors of a metadata request that only mean the broker has not caught up with a new topic. */
function isMetadataLag(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return type === "UNKNOWN_TOPIC_OR_PARTITION" || type === "LEADER_NOT_AVAILABLE";
}

/** How a subscription hands records over: `maxRecords` 1 and `maxWaitMs` 0 for `subscribe`. */
interface BatchDelivery {
  readonly maxRecords: number;
  readonly maxWaitMs: number;
  readonly handler: BatchHandler;
}

interface SubscriptionParts extends BatchDelivery {
  readonly consumer: Consumer;
  readonly group: string;
  readonly topics: readonly string[];
  readonly logger: EventLogger;
  readonly redelivery: Backoff;
  readonly concurrency: number;
}

/** One subscription: a consumer group member and the loop that hands it records. */
class KafkaSubscription {
  readonly #parts: SubscriptionParts;
  /** Aborted when the subscription closes: the handler's signal. */
  readonly #controller = new AbortController();
  #restartTimer: NodeJS.Timeout | undefined;
  readonly #resumeTimers = new Set<NodeJS.Timeout>();
  /** Per partition: the first offset of the batch waiting to fill, and since when (performance.now()). */
  readonly #waiting = new Map<string, { readonly offset: string; readonly since: number }>();
  #closing: Promise<void> | undefined;
  readonly #blocked: BlockedPartitions;

  constructor(parts: SubscriptionParts) {
    this.#parts = parts;
    this.#blocked = new BlockedPartitions({
      group: parts.group,
      bus: "kafka bus",
      logger: parts.logger,
      backoff: parts.redelivery,
    });
    const { consumer } = parts;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.#onCrash(payload.error);
    });
    // A partition a rebalance gave to another member is that member's to report.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned = payload.memberAssignment;
      this.#blocked.keepOnly((topic, partition) => assigned[topic]?.includes(partition) ?? false);
    });
  }

  blocked(): BlockedPartition[] {
    return this.#blocked.list();
  }

  async start(): Promise<void> {
    const { consumer, topics } = this.#parts;
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await this.#run();
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#controller.abort(new Error("subscription closed"));
      clearTimeout(this.#restartTimer);
      for (const timer of this.#resumeTimers) clearTimeout(timer);
      // Stops fetching, waits for the batch in flight (its handler and commit), leaves the group.
      await this.#parts.consumer.disconnect();
    })();
    return this.#closing;
  }

  #run(): Promise<void> {
    return this.#parts.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.#parts.concurrency,
      eachBatch: (payload) => this.#eachBatch(payload),
    });
  }

  /** KafkaJS has stopped the consumer (and disconnected it); it runs again after a pause. */
  #onCrash(error: Error): void {
    const { logger, group } = this.#parts;
    if (this.#controller.signal.aborted) return;
    logger.error(
      { err: error, group, restartInMs: restartDelayMs },
      "kafka bus: consumer stopped on an error, restarting it",
    );
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (this.#controller.signal.aborted) return;
      // A failure to start comes back through the crash event and schedules the next attempt.
      this.#run().catch((restartError: unknown) => {
        logger.error({ err: restartError, group }, "kafka bus: cannot restart the consumer");
      });
    }, restartDelayMs);
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const { topic, partition, messages } = payload.batch;
    const { maxRecords } = this.#parts;
    if (this.#waitsToFill(payload)) return;
    // One commit for what the fetch brought, not one per record: a crash before it redelivers
    // records already handled, which consumers are built for (idempotent by event id).
    let handledUpTo: string | undefined;
    try {
      for (let start = 0; start < messages.length; start += maxRecords) {
        if (this.#controller.signal.aborted || !payload.isRunning() || payload.isStale()) return;
        const chunk = messages.slice(start, start + maxRecords);
        const outcome = await this.#deliver(topic, partition, chunk, payload);
        if (typeof outcome === "number") this.#pauseFor(payload, outcome);
        if (outcome !== "handled") return;
        handledUpTo = chunk[chunk.length - 1]?.offset ?? payload.batch.lastOffset();
        payload.resolveOffset(handledUpTo);
      }
    } finally {
      // Also on the way out (closing, a failed chunk): what was handled is acknowledged.
      if (handledUpTo !== undefined && !payload.isStale()) {
        const next = (BigInt(handledUpTo) + 1n).toString();
        await payload.commitOffsetsIfNecessary({
          topics: [{ topic, partitions: [{ partition, offset: next }] }],
        });
      }
    }
  }

  /**
   * Whether the fetched records are too few for a batch and may still wait for more: then the
   * partition pauses for the rest of `maxWaitMs` and they are fetched again with what arrived
   * meanwhile. Never when the broker already holds more than the fetch brought.
   */
  #waitsToFill(payload: EachBatchPayload): boolean {
    const { maxRecords, maxWaitMs } = this.#parts;
    const { topic, partition, messages } = payload.batch;
    const first = messages[0];
    if (maxWaitMs === 0 || first === undefined || messages.length >= maxRecords) return false;
    if (payload.batch.offsetLag() !== "0") return false;
    const key = `${topic}\u0000${partition}`;
    const now = performance.now();
    let waiting = this.#waiting.get(key);
    if (waiting?.offset !== first.offset) {
      waiting = { offset: first.offset, since: now };
      this.#waiting.set(key, waiting);
    }
    const remainingMs = waiting.since + maxWaitMs - now;
    if (remainingMs <= 0) return false;
    this.#pauseFor(payload, remainingMs);
    return true;
  }

  /**
   * Hands a batch to the handler; records that are not events of ours are left out (and a batch
   * of only such records counts as handled). The consumer heart-beats meanwhile: KafkaJS does so
   * only between batches, and a handler may take longer than the session (a large batch into a
   * slow store). A failure answers the pause before the batch is delivered again.
   */
  async #deliver(
    topic: string,
    partition: number,
    messages: readonly KafkaMessage[],
    payload: EachBatchPayload,
  ): Promise<"handled" | "closing" | number> {
    const { handler, logger, group } = this.#parts;
    const signal = this.#controller.signal;
    const records: EventRecord[] = [];
    for (const message of messages) {
      const decoded = fromKafkaMessage(topic, message);
      if (decoded.ok) {
        records.push(decoded.record);
      } else {
        // Not an event of ours (another producer wrote it): no handler can use it, and blocking
        // the partition on it forever would stop every event behind it.
        logger.error(
          { group, topic, partition, offset: message.offset, reason: decoded.reason },
          "kafka bus: skipping a record that is not a CloudEvents event",
        );
      }
    }
    const [first] = records;
    if (first === undefined) return "handled";
    const beat = setInterval(() => {
      // A failed heartbeat (a rebalance, a lost coordinator) shows again, and is acted on, when
      // KafkaJS heart-beats after the batch.
      payload.heartbeat().catch(() => undefined);
    }, heartbeatIntervalMs);
    try {
      await handler({ topic, partition, records }, signal);
      this.#blocked.handled(topic, partition);
      return "handled";
    } catch (error) {
      if (signal.aborted) return "closing";
      return this.#blocked.failed({
        topic,
        partition,
        offset: messages[0]?.offset,
        id: first.id,
        count: records.length,
        error,
      });
    } finally {
      clearInterval(beat);
    }
  }

  /**
   * Redelivery, after a failed batch or a wait for one to fill: the partition pauses for `ms`,
   * and since the batch's offsets were not resolved, the next fetch after resuming starts at
   * its first record again. The partition's later records wait behind it; other partitions go
   * on being fetched meanwhile.
   */
  #pauseFor(payload: EachBatchPayload, ms: number): void {
    const resume = payload.pause();
    const timer = setTimeout(() => {
      this.#resumeTimers.delete(timer);
      resume();
    }, ms);
    this.#resumeTimers.add(timer);
  }
}
