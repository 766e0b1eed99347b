/**
 * The event-bus port. Adapters: the embedded bus (an append-only log under the data directory)
 * and Kafka (`kafkajs`, behind this port so the client can be swapped; ADR 0038).
 *
 * Delivery contract, the same on every adapter:
 *   - topics are named; records with the same key keep their order;
 *   - each consumer group receives every record at least once; a group's position advances
 *     only after its handler resolved, so a crash or restart redelivers, never skips;
 *   - consumers are therefore idempotent by `id`: an effect is keyed by the event id;
 *   - a record whose handler failed is delivered again, after a pause that grows with each
 *     failure up to a cap, without limit: its partition waits behind it, and the subscription
 *     tells which partitions wait so (`Subscription.blocked`, blocked-partitions.ts). Taking a
 *     record that can never succeed off its partition is the consumer's business
 *     (dead-lettering-handler.ts, ADR 0110).
 *
 * Batch delivery (`subscribeBatch`) keeps the same contract, a batch at a time: a batch holds
 * consecutive records of one partition, in order; the group's position moves past the batch
 * only after its handler resolved for all of it, and a batch whose handler failed (or that was
 * in flight when the consumer stopped) is delivered again from its first record.
 */
import type { BlockedPartition } from "./blocked-partitions.js";

/** One event as it travels: CloudEvents 1.0 attributes plus the protobuf-JSON payload. */
export interface EventRecord {
  /** CloudEvents `id`: unique per event, the key of idempotent consumption. */
  readonly id: string;
  /** CloudEvents `type`: the contract's event name, e.g. ORDER_PLACED. */
  readonly type: string;
  /** CloudEvents `source`: the publishing service, e.g. /commerce/order. */
  readonly source: string;
  /** CloudEvents `time`: RFC 3339 UTC. */
  readonly time: string;
  /** CloudEvents `subject`: the aggregate id, also the partition key. */
  readonly subject: string;
  readonly topic: string;
  /** The payload message as protobuf JSON. */
  readonly data: string;
  /**
   * W3C trace context (`traceparent`) of the change that caused the event, captured when the
   * event was recorded in the outbox; absent when that change was not traced.
   */
  readonly traceparent?: string;
  /** W3C `tracestate` of the same context, when it had one. */
  readonly tracestate?: string;
  /**
   * Set only on a copy in a dead-letter topic: why the consumer gave up on the original. Kafka
   * carries it in headers; it is never part of `data`, so the payload still parses as is.
   */
  readonly deadLetter?: DeadLetterInfo;
}

/** The fields of a record, its optional ones possibly undefined (as a decoder finds them). */
export type EventRecordFields = {
  readonly [K in keyof EventRecord]-?: undefined extends EventRecord[K]
    ? EventRecord[K] | undefined
    : EventRecord[K];
};

/**
 * A record of these fields, the optional ones left out where undefined: the one way a decoder
 * (a Kafka message, a line of the embedded log) makes a record.
 */
export function eventRecord(fields: EventRecordFields): EventRecord {
  const { traceparent, tracestate, deadLetter, ...required } = fields;
  return {
    ...required,
    ...(traceparent === undefined ? {} : { traceparent }),
    ...(tracestate === undefined ? {} : { tracestate }),
    ...(deadLetter === undefined ? {} : { deadLetter }),
  };
}

/** Where and why a record was given up on (see `withDeadLetters` and `createDeadLetterPublisher`). */
export interface DeadLetterInfo {
  /** The consumer group that gave up. */
  readonly group: string;
  /** The topic the record was consumed from. */
  readonly topic: string;
  /** The last error's message. */
  readonly error: string;
  /** RFC 3339 UTC time of giving up. */
  readonly time: string;
}

export type EventHandler = (record: EventRecord, signal: AbortSignal) => Promise<void>;

export interface SubscriptionOptions {
  /** Consumer group: each group sees every record; members of one group share them. */
  readonly group: string;
  readonly topics: readonly string[];
  readonly handler: EventHandler;
}

/**
 * Consecutive records of one partition of one topic, in the partition's order. The embedded bus
 * has one partition per topic (partition 0); Kafka's batches name the partition they come from.
 */
export interface RecordBatch {
  readonly topic: string;
  readonly partition: number;
  /** At least one record, at most the subscription's `maxRecords`. */
  readonly records: readonly EventRecord[];
}

export type BatchHandler = (batch: RecordBatch, signal: AbortSignal) => Promise<void>;

export interface BatchSubscriptionOptions {
  /** Consumer group, as for `subscribe`; a group consumes either one record or one batch a call. */
  readonly group: string;
  readonly topics: readonly string[];
  /** Most records in one batch; a positive integer. */
  readonly maxRecords: number;
  /**
   * How long a batch that is not full may wait for more records: it is handed over once it holds
   * `maxRecords` records or at most about this long after its first record became available,
   * whichever comes first. 0 hands over whatever is there at once.
   */
  readonly maxWaitMs: number;
  readonly handler: BatchHandler;
}

/**
 * Where a consumer group stands on one partition (offsets as decimal text, Kafka's convention:
 * an offset names the next record). The group has consumed the partition up to the log's end
 * when `committed` (or, for a group that has none, `start`: a new group begins at the earliest
 * record) is at least `end`.
 */
export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  /** The earliest record the partition still keeps (retention deletes older ones). */
  readonly start: string;
  /** The offset the next record appended to the partition gets. */
  readonly end: string;
  /** The group's committed position; undefined when it has none on this partition. */
  readonly committed: string | undefined;
}

export interface Subscription {
  /** Stops fetching, waits for the handler in flight, keeps the committed position. */
  close(): Promise<void>;
  /** The partitions of this subscription whose current record keeps failing, now. */
  blocked(): readonly BlockedPartition[];
}

export interface EventBus {
  /** The `messaging.system` of this bus's spans: `kafka`, or the embedded bus's own name. */
  readonly messagingSystem: string;
  /**
   * True when the bus answers now (Kafka: a broker answered a metadata request within a few
   * seconds); never throws. For readiness (ADR 0112); the embedded bus is in the process and
   * always answers.
   */
  ping(): Promise<boolean>;
  /** Resolves once every record is durably accepted by the bus, in order per key. */
  publish(records: readonly EventRecord[], signal?: AbortSignal): Promise<void>;
  subscribe(options: SubscriptionOptions): Promise<Subscription>;
  /** Like `subscribe`, but hands the handler a batch of records at a time (see `RecordBatch`). */
  subscribeBatch(options: BatchSubscriptionOptions): Promise<Subscription>;
  /**
   * Where `group` stands on every partition of `topics` (for a replay that must reach the end
   * the log had when it began: the analytics rebuild). Topics that do not exist yet are
   * created, as a subscription would.
   */
  lag(group: string, topics: readonly string[]): Promise<PartitionLag[]>;
  /**
   * Forgets `group`'s committed positions, so that its next subscription starts at the
   * earliest record, and so that a group used once (a replay) holds no retention back. The
   * group must have no member subscribed; a group the bus does not know is no error.
   */
  deleteGroup(group: string): Promise<void>;
  close(): Promise<void>;
}
