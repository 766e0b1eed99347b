/**
 * The embedded event bus (ADR 0040): the Kafka delivery contract — named topics, consumer
 * groups, at-least-once, per-key order — in-process and durable, for `npm start` without any
 * external service.
 *
 * Layout under `dataDir` (the bus owns the directory):
 *   LOCK                               pid of the process that has the bus open
 *   topics/<topic>/<first offset>.jsonl append-only segments of the topic's log (`TopicLog`)
 *   groups/<group>/<topic>.offsets     the group's committed positions (`ConsumerOffsets`)
 *
 * Partitioning: one partition per topic, consumed sequentially by each group. That keeps every
 * key's order trivially and makes a group's position one number; the price is no parallelism
 * inside a topic for one group, which an in-process bus does not need. A handler failure blocks
 * its group on that topic until the record succeeds, redelivered without limit after a pause
 * that grows from `redeliveryDelayMs` to `maxRedeliveryDelayMs` (blocked-partitions.ts); taking
 * a record that can never succeed off the topic is the consumer's business
 * (dead-lettering-handler.ts). Topics of one subscription are consumed independently, so a
 * handler may run concurrently for records of different topics.
 *
 * Members: several subscriptions with the same group share its records (round robin, still one
 * record at a time per topic); a record whose member leaves mid-handling goes to another member.
 *
 * Batches (`subscribeBatch`): the same loop hands a member up to `maxRecords` records from the
 * group's position and commits once, after the handler resolved for all of them; a failed
 * batch is delivered again from its first record. A batch that is not full waits for appends
 * until `maxWaitMs` after the loop first found a record at the position (a redelivery does not
 * wait again). A plain subscription is a member whose batches hold one record.
 *
 * Retention: after each commit, sealed segments that lie wholly below the smallest position of
 * every group ever seen on the topic, and are older than `retainMs`, are deleted. The log
 * therefore holds what the slowest known group has not consumed, plus `retainMs` of history
 * (so a group added later still finds recent events), plus one segment. Deletion is triggered
 * by commits, so an idle topic keeps its files until it moves again. A topic no group has
 * consumed (a dead-letter topic nobody reads) keeps everything; a group that is gone for good
 * holds retention back until its offset file is deleted.
 */
import { setTimeout as delay } from "node:timers/promises";
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pino } from "pino";
import type {
  BatchSubscriptionOptions,
  EventBus,
  EventRecord,
  PartitionLag,
  RecordBatch,
  Subscription,
  SubscriptionOptions,
} from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import { openConsumerOffsets, type ConsumerOffsets } from "./consumer-offsets.js";
import { assertBatchBounds, assertBusName, groupByTopic } from "./publish-batch.js";
import { TopicLog, isErrno } from "./topic-log.js";
import {
  BlockedPartitions,
  redeliveryBackoff,
  type BlockedPartition,
  type RedeliveryOptions,
} from "./blocked-partitions.js";
import type { Backoff } from "../resilience/backoff.js";

export interface EmbeddedBusOptions extends RedeliveryOptions {
  /** The bus's own directory; created if missing. */
  readonly dataDir: string;
  readonly logger?: EventLogger;
  /** Size at which a topic's log starts a new segment file; retention deletes whole segments. */
  readonly segmentBytes?: number;
  /** Sync each group commit to disk before `publish` resolves (default true). */
  readonly fsync?: boolean;
  /**
   * Consumed segments are kept at least this long after their last record (default 24 h), so a
   * consumer group added later still finds recent history, as with Kafka's time retention.
   */
  readonly retainMs?: number;
}

const defaultSegmentBytes = 8 * 1024 * 1024;
const defaultRetainMs = 24 * 60 * 60 * 1000;

/** Kafka's legal topic characters; also safe as a file name (no separators, no leading dot). */

/** Data directories open in this process; the LOCK file guards against other processes. */
const openDirectories = new Set<string>();

/** Opens (creating if needed) the bus stored under `dataDir`. */
export async function createEmbeddedBus(options: EmbeddedBusOptions): Promise<EventBus> {
  const segmentBytes = options.segmentBytes ?? defaultSegmentBytes;
  if (!Number.isSafeInteger(segmentBytes) || segmentBytes < 1) {
    throw new RangeError(`segmentBytes must be a positive integer, got ${segmentBytes}`);
  }
  const redelivery = redeliveryBackoff(options);
  const retainMs = options.retainMs ?? defaultRetainMs;
  if (!Number.isFinite(retainMs) || retainMs < 0) {
    throw new RangeError(`retainMs must be >= 0, got ${retainMs}`);
  }
  const logger = options.logger ?? pino({ name: "embedded-bus" });
  const dataDir = resolve(options.dataDir);
  const releaseLock = await lockDirectory(dataDir);
  try {
    const offsets = await openConsumerOffsets(join(dataDir, "groups"), logger);
    return new EmbeddedBus({
      dataDir,
      logger,
      segmentBytes,
      fsync: options.fsync ?? true,
      redelivery,
      retainMs,
      offsets,
      releaseLock,
    });
  } catch (error) {
    await releaseLock();
    throw error;
  }
}

interface BusSettings {
  readonly dataDir: string;
  readonly logger: EventLogger;
  readonly segmentBytes: number;
  readonly fsync: boolean;
  readonly redelivery: Backoff;
  readonly retainMs: number;
  readonly offsets: ConsumerOffsets;
  readonly releaseLock: () => Promise<void>;
}

class EmbeddedBus implements EventBus {
  /** Not a broker the semantic conventions name: the platform's own append-only log. */
  readonly messagingSystem = "commerce_embedded_log";
  readonly #settings: BusSettings;
  readonly #logs = new Map<string, TopicLog>();
  readonly #cursors = new Map<string, Promise<GroupCursor>>();
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(settings: BusSettings) {
    this.#settings = settings;
  }

  // Everything before the `await` runs within the call, so the appends are queued in call order
  // and two publishes keep that order on every topic. An abort after that point recalls nothing.
  /** In the process: it answers while it is open. */
  ping(): Promise<boolean> {
    return Promise.resolve(!this.#closed);
  }

  async publish(records: readonly EventRecord[], signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new Error("the embedded event bus is closed");
    signal?.throwIfAborted();
    const byTopic = groupByTopic(records);
    await Promise.all([...byTopic].map(([topic, batch]) => this.#log(topic).append(batch)));
  }

  subscribe(options: SubscriptionOptions): Promise<Subscription> {
    const { handler } = options;
    // One record a batch, so the loop below is the only delivery path.
    const member = new Member(1, 0, async (batch, signal) => {
      for (const record of batch.records) await handler(record, signal);
    });
    return this.#join("subscribe", options.group, options.topics, member);
  }

  subscribeBatch(options: BatchSubscriptionOptions): Promise<Subscription> {
    assertBatchBounds(options.maxRecords, options.maxWaitMs);
    const member = new Member(options.maxRecords, options.maxWaitMs, options.handler);
    return this.#join("subscribeBatch", options.group, options.topics, member);
  }

  async #join(
    operation: string,
    group: string,
    topics: readonly string[],
    member: Member,
  ): Promise<Subscription> {
    if (this.#closed) throw new Error("the embedded event bus is closed");
    assertBusName("group", group, operation);
    if (topics.length === 0) throw new TypeError(`${operation}: no topics`);
    for (const topic of topics) assertBusName("topic", topic, operation);
    const cursors = await Promise.all([...new Set(topics)].map((topic) => this.#cursor(group, topic)));
    for (const cursor of cursors) cursor.add(member);
    let closing: Promise<void> | undefined;
    return {
      close: () => {
        closing ??= (async () => {
          member.abort();
          await Promise.all(cursors.map((cursor) => cursor.remove(member)));
        })();
        return closing;
      },
      blocked: () => cursors.flatMap((cursor) => cursor.blocked()),
    };
  }

  async lag(group: string, topics: readonly string[]): Promise<PartitionLag[]> {
    if (this.#closed) throw new Error("the embedded event bus is closed");
    assertBusName("group", group, "lag");
    const lags: PartitionLag[] = [];
    for (const topic of new Set(topics)) {
      assertBusName("topic", topic, "lag");
      const log = this.#log(topic);
      await log.ready;
      const committed = this.#settings.offsets.get(group, topic);
      lags.push({
        topic,
        partition: 0,
        start: String(log.start),
        end: String(log.end),
        committed: committed === undefined ? undefined : String(committed),
      });
    }
    return lags;
  }

  async deleteGroup(group: string): Promise<void> {
    if (this.#closed) throw new Error("the embedded event bus is closed");
    assertBusName("group", group, "deleteGroup");
    const prefix = `${group}\u0000`;
    const opened = [...this.#cursors].filter(([key]) => key.startsWith(prefix));
    const cursors = await Promise.all(opened.map(([, cursor]) => cursor));
    if (cursors.some((cursor) => cursor.hasMembers())) {
      throw new Error(`embedded bus: group ${group} still has a subscription; close it first`);
    }
    for (const [key] of opened) this.#cursors.delete(key);
    await Promise.all(cursors.map((cursor) => cursor.stop()));
    await this.#settings.offsets.forget(group);
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async #shutDown(): Promise<void> {
    const cursors = await Promise.allSettled(this.#cursors.values());
    const stopping: Promise<void>[] = [];
    for (const settled of cursors) if (settled.status === "fulfilled") stopping.push(settled.value.stop());
    await Promise.all(stopping);
    await Promise.all([...this.#logs.values()].map((log) => log.close()));
    await this.#settings.offsets.close();
    await this.#settings.releaseLock();
  }

  #log(topic: string): TopicLog {
    let log = this.#logs.get(topic);
    if (log === undefined) {
      const created = new TopicLog({
        dir: join(this.#settings.dataDir, "topics", topic),
        topic,
        segmentBytes: this.#settings.segmentBytes,
        fsync: this.#settings.fsync,
        logger: this.#settings.logger,
      });
      // A log that failed to open is forgotten, so the next call tries again.
      created.ready.catch(() => {
        if (this.#logs.get(topic) === created) this.#logs.delete(topic);
      });
      this.#logs.set(topic, created);
      log = created;
    }
    return log;
  }

  #cursor(group: string, topic: string): Promise<GroupCursor> {
    const key = `${group}\u0000${topic}`;
    let cursor = this.#cursors.get(key);
    if (cursor === undefined) {
      cursor = this.#openCursor(group, topic);
      const opening = cursor;
      opening.catch(() => {
        if (this.#cursors.get(key) === opening) this.#cursors.delete(key);
      });
      this.#cursors.set(key, cursor);
    }
    return cursor;
  }

  async #openCursor(group: string, topic: string): Promise<GroupCursor> {
    const { offsets, logger } = this.#settings;
    const log = this.#log(topic);
    await log.ready;
    let offset = offsets.get(group, topic);
    if (offset === undefined) {
      // A new group starts at the earliest record. Committing now makes the group known, so
      // retention keeps what it has not read yet, also across a restart.
      offset = log.start;
      await offsets.commit(group, topic, offset);
    } else if (offset < log.start || offset > log.end) {
      const clamped = Math.min(Math.max(offset, log.start), log.end);
      logger.warn(
        { group, topic, committed: offset, start: log.start, end: log.end, clamped },
        "embedded bus: committed offset outside the log, clamped",
      );
      offset = clamped;
    }
    return new GroupCursor({ group, log, offset, settings: this.#settings });
  }
}

/** One subscription's handler; its signal aborts when the subscription or the bus closes. */
class Member {
  readonly #controller = new AbortController();

  constructor(
    readonly maxRecords: number,
    readonly maxWaitMs: number,
    readonly handler: (batch: RecordBatch, signal: AbortSignal) => Promise<void>,
  ) {}

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  abort(): void {
    this.#controller.abort(new Error("subscription closed"));
  }
}

interface GroupCursorOptions {
  readonly group: string;
  readonly log: TopicLog;
  readonly offset: number;
  readonly settings: BusSettings;
}

/**
 * A group's position on one topic and the loop that delivers from it: read the records at the
 * position (as many as the next member takes in a batch), hand them to that member, and only
 * after the handler resolved advance past them and commit.
 */
class GroupCursor {
  readonly #group: string;
  readonly #log: TopicLog;
  readonly #settings: BusSettings;
  #offset: number;
  readonly #members: Member[] = [];
  #nextMember = 0;
  /** The member handling a batch right now (handler and commit). */
  #busy: Member | undefined;
  /** Since when (performance.now()) a record has been waiting at `offset` for its batch to fill. */
  #waiting: { readonly offset: number; readonly since: number } | undefined;
  readonly #idleWaiters: (() => void)[] = [];
  #wakeup: (() => void) | undefined;
  /** Ends the pause after a failed delivery early: a member joined. */
  #endPause: (() => void) | undefined;
  readonly #stopping = new AbortController();
  readonly #unlisten: () => void;
  readonly #loop: Promise<void>;
  /** The group's one partition of the topic, while its record keeps failing. */
  readonly #blocked: BlockedPartitions;

  constructor(options: GroupCursorOptions) {
    this.#group = options.group;
    this.#log = options.log;
    this.#settings = options.settings;
    this.#offset = options.offset;
    this.#blocked = new BlockedPartitions({
      group: options.group,
      bus: "embedded bus",
      logger: options.settings.logger,
      backoff: options.settings.redelivery,
    });
    this.#unlisten = this.#log.onAppend(() => {
      this.#wake();
    });
    // `#run` handles its own failures; this only keeps a bug from becoming an unhandled rejection.
    this.#loop = this.#run().catch((error: unknown) => {
      this.#settings.logger.error(
        { err: error, group: this.#group, topic: this.#log.topic },
        "embedded bus: consumer loop stopped unexpectedly",
      );
    });
  }

  add(member: Member): void {
    this.#members.push(member);
    this.#wake();
    // A member that joins (the subscription of a restarted consumer) is handed the record at once.
    this.#endPause?.();
  }

  hasMembers(): boolean {
    return this.#members.length > 0;
  }

  blocked(): BlockedPartition[] {
    return this.#blocked.list();
  }

  /** Takes `member` out of the rotation and waits until it is no longer handling a record. */
  async remove(member: Member): Promise<void> {
    const index = this.#members.indexOf(member);
    if (index >= 0) this.#members.splice(index, 1);
    while (this.#busy === member) {
      await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    }
  }

  /** Aborts every member and waits for the loop to end (after the record in flight). */
  async stop(): Promise<void> {
    for (const member of this.#members) member.abort();
    this.#stopping.abort();
    this.#wake();
    this.#unlisten();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopping.signal.aborted) {
      const next = this.#members[this.#nextMember % this.#members.length];
      if (next === undefined || this.#offset >= this.#log.end) {
        // The check above and the registration below run in one tick, so a wake-up from an
        // append or a joining member cannot fall between them.
        await new Promise<void>((resolve) => (this.#wakeup = resolve));
        continue;
      }
      if (this.#offset < this.#log.start) {
        // Only reachable if offset files were edited by hand: skip to what is still kept.
        this.#settings.logger.warn(
          { group: this.#group, topic: this.#log.topic, offset: this.#offset, start: this.#log.start },
          "embedded bus: position below retention, skipping to the earliest kept record",
        );
        this.#offset = this.#log.start;
      }
      const fillMs = this.#fillTimeMs(next);
      if (fillMs > 0) {
        await this.#sleep(fillMs);
        continue;
      }
      let records: readonly EventRecord[];
      try {
        records = await this.#log.read(this.#offset, next.maxRecords);
      } catch (error) {
        this.#settings.logger.error(
          { err: error, group: this.#group, topic: this.#log.topic, offset: this.#offset },
          "embedded bus: cannot read the topic log",
        );
        await this.#pause(this.#settings.redelivery.initialMs);
        continue;
      }
      // The member may have changed while reading; a smaller batch suits any member.
      const member = this.#pickMember();
      const batch = records.slice(0, member?.maxRecords);
      if (batch.length === 0 || member === undefined) continue;
      this.#busy = member;
      const outcome = await this.#deliver(member, batch);
      if (outcome === "handled") {
        this.#offset += batch.length;
        this.#waiting = undefined;
        await this.#commit();
      }
      this.#busy = undefined;
      for (const resolve of this.#idleWaiters.splice(0)) resolve();
      // A member that left mid-batch failed because of that; its records go to the next one at
      // once. A real failure waits before the same records are tried again.
      if (typeof outcome === "number") await this.#pause(outcome);
    }
  }

  /** "handled", "left" (the member left mid-batch), or the pause after a failure. */
  async #deliver(member: Member, records: readonly EventRecord[]): Promise<"handled" | "left" | number> {
    const topic = this.#log.topic;
    try {
      await member.handler({ topic, partition: 0, records }, member.signal);
      this.#blocked.handled(topic, 0);
      return "handled";
    } catch (error) {
      if (member.signal.aborted) return "left";
      return this.#blocked.failed({
        topic,
        partition: 0,
        offset: this.#offset,
        id: records[0]?.id,
        count: records.length,
        error,
      });
    }
  }

  /**
   * How much longer the records at the position may wait for `member`'s batch to fill: none
   * once there are enough of them or the first has waited `maxWaitMs`.
   */
  #fillTimeMs(member: Member): number {
    if (member.maxWaitMs === 0 || this.#log.end - this.#offset >= member.maxRecords) return 0;
    const now = performance.now();
    if (this.#waiting?.offset !== this.#offset) this.#waiting = { offset: this.#offset, since: now };
    return Math.max(0, this.#waiting.since + member.maxWaitMs - now);
  }

  /** Waits `ms`, or less if an append, a joining member or `stop` wakes the loop. */
  async #sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake();
      }, ms);
      this.#wakeup = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  async #commit(): Promise<void> {
    const { offsets, logger } = this.#settings;
    const topic = this.#log.topic;
    try {
      await offsets.commit(this.#group, topic, this.#offset);
    } catch (error) {
      // The in-memory position still advances: failing to persist it means at worst a
      // redelivery after a restart, which consumers absorb by event id.
      logger.error(
        { err: error, group: this.#group, topic, offset: this.#offset },
        "embedded bus: cannot persist a consumer offset",
      );
      return;
    }
    const floor = offsets.minCommitted(topic);
    if (floor === undefined) return;
    try {
      await this.#log.truncateBefore(floor, Date.now() - this.#settings.retainMs);
    } catch (error) {
      logger.warn({ err: error, topic, floor }, "embedded bus: cannot delete consumed segments");
    }
  }

  #pickMember(): Member | undefined {
    if (this.#members.length === 0) return undefined;
    const member = this.#members[this.#nextMember % this.#members.length];
    this.#nextMember = (this.#nextMember + 1) % this.#members.length;
    return member;
  }

  /** Waits `ms`, or until the bus stops or a member joins. */
  async #pause(ms: number): Promise<void> {
    const ended = new AbortController();
    this.#endPause = () => {
      ended.abort();
    };
    try {
      await delay(ms, undefined, { signal: AbortSignal.any([this.#stopping.signal, ended.signal]) }).catch(
        () => undefined,
      );
    } finally {
      this.#endPause = undefined;
    }
  }

  #wake(): void {
    const wakeup = this.#wakeup;
    this.#wakeup = undefined;
    wakeup?.();
  }
}

/**
 * Claims `dir` for this bus: within the process by a set, across processes by a LOCK file
 * holding the owner's pid (a file left by a dead process is taken over). Two writers on one
 * log would interleave appends and corrupt it.
 */
async function lockDirectory(dir: string): Promise<() => Promise<void>> {
  if (openDirectories.has(dir)) throw new Error(`embedded bus: ${dir} is already open in this process`);
  openDirectories.add(dir);
  const path = join(dir, "LOCK");
  try {
    await mkdir(dir, { recursive: true });
    try {
      await writeFile(path, `${process.pid}\n`, { flag: "wx" });
    } catch (error) {
      if (!isErrno(error, "EEXIST")) throw error;
      const holder = Number.parseInt(await readFile(path, "utf8"), 10);
      if (Number.isSafeInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new Error(`embedded bus: ${dir} is in use by process ${holder}`, { cause: error });
      }
      await writeFile(path, `${process.pid}\n`);
    }
  } catch (error) {
    openDirectories.delete(dir);
    throw error;
  }
  return async () => {
    await unlink(path).catch(() => undefined);
    openDirectories.delete(dir);
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, "EPERM");
  }
}
