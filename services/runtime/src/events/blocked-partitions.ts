/**
 * Where a consumer group is held up, and for how long it waits before trying again. A record
 * (or batch) whose handler failed is delivered again, and its partition waits behind it, until
 * it goes through: at-least-once with per-key order allows nothing else, and only a record that
 * can never succeed is taken off the partition, by the consumer's dead-letter wrapper
 * (dead-lettering-handler.ts, ADR 0110). So a store that is down for an hour blocks its
 * consumers for an hour, and they resume by themselves when it is back.
 *
 * Both bus adapters keep one of these per subscription: after each failed delivery it gives the
 * pause before the next (the runtime's backoff, capped and jittered: consumers failing against
 * one dependency do not retry in step, and a long outage costs a try per cap), and writes the
 * line that says which group and partition is blocked, since when, how often it failed and why;
 * once the record goes through, the line that says it is unblocked. An infrastructure failure is
 * a warning (it passes by itself); any other is an error, someone has to fix it. What it holds
 * now (`list`) is the consumer's health: a subscription tells it (`Subscription.blocked`), and
 * the consumer's metrics export it (messaging-metrics.ts).
 */
import { isInfrastructureFailure } from "../errors/infrastructure-failure.js";
import { backoffPauseMs, checkBackoff, type Backoff } from "../resilience/backoff.js";
import type { EventLogger } from "./event-logger.js";

/** A partition whose current record (or batch) keeps failing. */
export interface BlockedPartition {
  readonly topic: string;
  readonly partition: number;
  /** When its first failed delivery in a row ended. */
  readonly since: Date;
  /** Failed deliveries in a row. */
  readonly failures: number;
  /** The last failure's error name (`StoreUnavailableError`), as metrics label it. */
  readonly errorType: string;
}

/** One failed delivery. */
export interface FailedDelivery {
  readonly topic: string;
  readonly partition: number;
  /** The offset of its (first) record, as the bus numbers it. */
  readonly offset: string | number | undefined;
  /** The event id of its (first) record. */
  readonly id: string | undefined;
  /** Records delivered at once (1 for a plain subscription). */
  readonly count: number;
  readonly error: unknown;
}

export interface BlockedPartitionsOptions {
  /** The subscription's consumer group. */
  readonly group: string;
  /** Prefixes the log lines: `kafka bus`, `embedded bus`. */
  readonly bus: string;
  readonly logger: EventLogger;
  /** Pauses before a redelivery, growing with the failures in a row. */
  readonly backoff: Backoff;
  /** Source of jitter in [0, 1); `Math.random` unless a test pins it. */
  readonly random?: () => number;
}

interface Blocked {
  readonly topic: string;
  readonly partition: number;
  readonly since: Date;
  failures: number;
  errorType: string;
}

export class BlockedPartitions {
  readonly #options: BlockedPartitionsOptions;
  readonly #blocked = new Map<string, Blocked>();

  constructor(options: BlockedPartitionsOptions) {
    checkBackoff(options.backoff);
    this.#options = options;
  }

  /** Records a failed delivery and returns the pause, in milliseconds, before the next one. */
  failed(delivery: FailedDelivery): number {
    const { topic, partition, error } = delivery;
    const key = keyOf(topic, partition);
    const blocked = this.#blocked.get(key) ?? {
      topic,
      partition,
      since: new Date(),
      failures: 0,
      errorType: "",
    };
    blocked.failures += 1;
    blocked.errorType = error instanceof Error ? error.name : typeof error;
    this.#blocked.set(key, blocked);
    const { group, bus, logger, backoff, random } = this.#options;
    const pauseMs = backoffPauseMs(backoff, blocked.failures, random);
    const infrastructure = isInfrastructureFailure(error);
    const fields = {
      err: error,
      group,
      topic,
      partition,
      offset: delivery.offset,
      id: delivery.id,
      count: delivery.count,
      blockedSince: blocked.since.toISOString(),
      failures: blocked.failures,
      retryInMs: pauseMs,
      failure: infrastructure ? "infrastructure" : "unexpected",
    };
    const message = `${bus}: partition blocked: the handler failed, the same ${
      delivery.count === 1 ? "record" : "batch"
    } is delivered again after a pause`;
    if (infrastructure) logger.warn(fields, message);
    else logger.error(fields, message);
    return pauseMs;
  }

  /** Records a delivery that went through: its partition is no longer blocked. */
  handled(topic: string, partition: number): void {
    const key = keyOf(topic, partition);
    const blocked = this.#blocked.get(key);
    if (blocked === undefined) return;
    this.#blocked.delete(key);
    this.#options.logger.info(
      {
        group: this.#options.group,
        topic,
        partition,
        blockedSince: blocked.since.toISOString(),
        blockedForMs: Date.now() - blocked.since.getTime(),
        failures: blocked.failures,
      },
      `${this.#options.bus}: partition unblocked: the record went through`,
    );
  }

  /** Forgets the partitions `assigned` says are no longer this member's (a rebalance took them). */
  keepOnly(assigned: (topic: string, partition: number) => boolean): void {
    for (const [key, blocked] of this.#blocked) {
      if (!assigned(blocked.topic, blocked.partition)) this.#blocked.delete(key);
    }
  }

  /** The partitions blocked now. */
  list(): BlockedPartition[] {
    return [...this.#blocked.values()].map(({ topic, partition, since, failures, errorType }) => ({
      topic,
      partition,
      since,
      failures,
      errorType,
    }));
  }
}

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** How a bus adapter paces redeliveries (both adapters' options include these). */
export interface RedeliveryOptions {
  /**
   * Ceiling of the pause before a record whose handler failed is delivered again (default
   * 1000 ms); it doubles with each failure in a row.
   */
  readonly redeliveryDelayMs?: number;
  /** Cap of that pause (default 30 s, or `redeliveryDelayMs` when that is longer). */
  readonly maxRedeliveryDelayMs?: number;
}

/** Default ceiling of the first pause after a failed delivery. */
const defaultRedeliveryDelayMs = 1_000;
/** Default cap of the pause: a partition blocked for an hour tries about 120 times. */
const defaultMaxRedeliveryDelayMs = 30_000;

/**
 * The redelivery backoff of `options`: the ceiling of the first pause doubling per failure up
 * to the cap, with equal jitter (a consumer against a failing dependency, backoff.ts). Throws a
 * RangeError for values that cannot be meant.
 */
export function redeliveryBackoff(options: RedeliveryOptions): Backoff {
  const initialMs = options.redeliveryDelayMs ?? defaultRedeliveryDelayMs;
  if (!Number.isFinite(initialMs) || initialMs < 0) {
    throw new RangeError(`redeliveryDelayMs must be >= 0, got ${initialMs}`);
  }
  const backoff: Backoff = {
    initialMs,
    maxMs: options.maxRedeliveryDelayMs ?? Math.max(defaultMaxRedeliveryDelayMs, initialMs),
    jitter: "equal",
  };
  checkBackoff(backoff);
  return backoff;
}
