/**
 * Replaying a consumer group's dead letters once their cause is fixed (ADR 0111): the operator
 * runs `npm run events:replay -- <group>` (dead-letter-replay-main.ts), which copies each record
 * of `<group>.dead-letter` not replayed before to `<group>.replay`, a topic every consumer
 * started with `startConsumer` or `startBatchConsumer` also reads. So a replay reaches the group
 * that parked the record and no other: the groups that handled the event the first time do not
 * see it again, and nothing rests on every consumer of a topic being idempotent. The group
 * handles a replayed record as when it was first consumed: from its original topic, without the
 * dead-letter details (`asFirstConsumed`), so a record that fails for good again is parked again
 * with its original topic.
 *
 * Each dead letter is replayed once: the replay reads the dead-letter topic in a consumer group
 * of its own (`<group>.dead-letter-replay`), which commits what it copied, so the next replay
 * starts after it. A replay that stops half-way (a crash between the copy and the commit) copies
 * a record again, which the group absorbs by event id as any redelivery. It copies what the
 * topic held when it began, and returns. A record the group parks again while the replay runs
 * (its cause is not fixed after all) is left for the next replay: copying it again at once would
 * loop for as long as the replay ran.
 */
import { setTimeout as delay } from "node:timers/promises";
import { deadLetterTopic } from "./dead-letter-publisher.js";
import type { BatchHandler, EventBus, EventHandler, EventRecord, PartitionLag } from "./event-bus.js";

/** The topic a replay fills for `group`, and `group` reads beside its own. */
export function replayTopic(group: string): string {
  return `${group}.replay`;
}

/** The consumer group with which replays of `group`'s dead letters read them. */
export function replayerGroup(group: string): string {
  return `${group}.dead-letter-replay`;
}

/** The topics a consumer group reads: its own, then its replay topic. */
export function consumedTopics(group: string, topics: readonly string[]): string[] {
  return [...new Set([...topics, replayTopic(group)])];
}

/** A record as first consumed: from its original topic, without the dead-letter details. */
function firstConsumed(record: EventRecord): EventRecord {
  const { deadLetter, ...event } = record;
  return deadLetter === undefined ? record : { ...event, topic: deadLetter.topic };
}

/** `handler`, handed a record of `group`'s replay topic as it was first consumed. */
export function asFirstConsumed(handler: EventHandler, group: string): EventHandler {
  const replays = replayTopic(group);
  return (record, signal) => handler(record.topic === replays ? firstConsumed(record) : record, signal);
}

/**
 * `handler`, handed a batch of `group`'s replay topic as first consumed: cut into runs of
 * consecutive records of one original topic, a batch each, in order.
 */
export function batchesAsFirstConsumed(handler: BatchHandler, group: string): BatchHandler {
  const replays = replayTopic(group);
  return async (batch, signal) => {
    if (batch.topic !== replays) {
      await handler(batch, signal);
      return;
    }
    let run: EventRecord[] = [];
    const flush = async (): Promise<void> => {
      const [first] = run;
      if (first === undefined) return;
      await handler({ topic: first.topic, partition: batch.partition, records: run }, signal);
      run = [];
    };
    for (const record of batch.records.map(firstConsumed)) {
      if (run[0] !== undefined && run[0].topic !== record.topic) await flush();
      run.push(record);
    }
    await flush();
  };
}

export interface ReplayOptions {
  readonly bus: EventBus;
  /** The consumer group whose dead letters are replayed, e.g. `order-service`. */
  readonly group: string;
  /** Told of each dead letter as it is copied to the replay topic. */
  readonly onReplayed?: (record: EventRecord) => void;
  /** How often the replay looks whether it has copied everything (default 100 ms). */
  readonly pollMs?: number;
}

export interface ReplayResult {
  /** Dead letters copied to the replay topic. */
  readonly replayed: number;
}

/** Copies `group`'s dead letters not replayed before to its replay topic (see the module comment). */
export async function replayDeadLetters(options: ReplayOptions): Promise<ReplayResult> {
  const { bus, group } = options;
  const source = deadLetterTopic(group);
  const target = replayTopic(group);
  const replayer = replayerGroup(group);
  const goal = await bus.lag(replayer, [source]);
  if (goal.every((partition) => reached(partition, goal))) return { replayed: 0 };
  let replayed = 0;
  /** Event ids copied by this replay, and the parking each copy was of. */
  const copied = new Map<string, Set<string>>();
  const subscription = await bus.subscribe({
    group: replayer,
    topics: [source],
    handler: async (record, signal) => {
      const parking = record.deadLetter?.time ?? "";
      const parkings = copied.get(record.id);
      if (parkings !== undefined && !parkings.has(parking)) {
        // Parked again since this replay copied it: held, uncommitted, until the replay ends.
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        signal.throwIfAborted();
      }
      // The dead-letter details stay: they name the record's original topic.
      await bus.publish([{ ...record, topic: target }], signal);
      copied.set(record.id, (parkings ?? new Set()).add(parking));
      replayed += 1;
      options.onReplayed?.(record);
    },
  });
  try {
    for (;;) {
      const now = await bus.lag(replayer, [source]);
      if (goal.every((target) => reached(target, now))) break;
      await delay(options.pollMs ?? 100);
    }
  } finally {
    await subscription.close();
  }
  return { replayed };
}

/** Whether the replayer's position in `now` is at or past `target`'s end. */
function reached(target: PartitionLag, now: readonly PartitionLag[]): boolean {
  const current = now.find((lag) => lag.topic === target.topic && lag.partition === target.partition);
  const position = BigInt(current?.committed ?? current?.start ?? target.start);
  return position >= BigInt(target.end);
}
