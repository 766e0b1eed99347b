/**
 * One topic of the embedded bus: an append-only log of JSON lines (one `EventRecord` a line),
 * split into segment files named by the offset of their first record
 * (`00000000000000000042.jsonl`). A record's offset is its position in the topic, so a consumer
 * group's position is a single number.
 *
 * Why segments: retention can then drop whole files below the slowest group's position without
 * ever rewriting a file that is being appended to. Only the newest (active) segment is kept in
 * memory; older ones are read back on demand through a small cache, so memory stays bounded by
 * a few segments whatever the backlog.
 *
 * Why group commit: every `append` that arrives while a write is in flight joins the next
 * write, so one `fdatasync` covers many publishes and `append` still resolves only once its
 * records are on disk.
 */
import { mkdir, open, readFile, readdir, stat, truncate, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { eventRecord, type DeadLetterInfo, type EventRecord } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";

export interface TopicLogOptions {
  /** The topic's own directory. */
  readonly dir: string;
  readonly topic: string;
  /** A write that would take the active segment past this size starts a new segment. */
  readonly segmentBytes: number;
  /** `fdatasync` after every group commit (survives power loss, not only a process crash). */
  readonly fsync: boolean;
  readonly logger: EventLogger;
  /** Sealed segments kept parsed in memory for lagging readers. */
  readonly cachedSegments?: number;
}

interface PendingAppend {
  readonly records: readonly EventRecord[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

interface ActiveSegment {
  readonly base: number;
  bytes: number;
  readonly records: EventRecord[];
}

const segmentFile = /^(\d{20})\.jsonl$/;
const newline = 0x0a;

/** The file name of the segment whose first record has offset `base`. */
export function segmentName(base: number): string {
  return `${String(base).padStart(20, "0")}.jsonl`;
}

/**
 * Copies the known fields of an untrusted value into a fresh record, or returns undefined when a
 * required field is missing or not a string. Used on publish (callers may pass richer objects)
 * and on read (the file may have been damaged), so the log only ever holds well-formed records.
 */
export function normalizeEventRecord(value: unknown): EventRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const { id, type, source, time, subject, topic, data, traceparent, tracestate, deadLetter } = v;
  if (
    typeof id !== "string" ||
    typeof type !== "string" ||
    typeof source !== "string" ||
    typeof time !== "string" ||
    typeof subject !== "string" ||
    typeof topic !== "string" ||
    typeof data !== "string" ||
    (traceparent !== undefined && typeof traceparent !== "string") ||
    (tracestate !== undefined && typeof tracestate !== "string")
  ) {
    return undefined;
  }
  const info = deadLetter === undefined ? undefined : normalizeDeadLetter(deadLetter);
  if (deadLetter !== undefined && info === undefined) return undefined;
  return eventRecord({
    id,
    type,
    source,
    time,
    subject,
    topic,
    data,
    traceparent,
    tracestate,
    deadLetter: info,
  });
}

function normalizeDeadLetter(value: unknown): DeadLetterInfo | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { group, topic, error, time } = value as Record<string, unknown>;
  if (
    typeof group !== "string" ||
    typeof topic !== "string" ||
    typeof error !== "string" ||
    typeof time !== "string"
  ) {
    return undefined;
  }
  return { group, topic, error, time };
}

/**
 * An open topic. Construction is synchronous and opening happens in the background (`ready`),
 * so appends are queued in call order even before the files are read: per-key order follows
 * publish order from the first call on.
 */
export class TopicLog {
  /** Resolves once the segments are scanned (and a torn tail repaired); rejects if that fails. */
  readonly ready: Promise<void>;
  readonly #options: TopicLogOptions;
  readonly #cacheLimit: number;
  /** First offsets of the sealed (read-only) segments, ascending. */
  #sealed: number[] = [];
  /** When each sealed segment got its last record (ms since the epoch). */
  readonly #sealedAt = new Map<number, number>();
  #active: ActiveSegment = { base: 0, bytes: 0, records: [] };
  #file: FileHandle | undefined;
  readonly #cache = new Map<number, readonly EventRecord[]>();
  readonly #queue: PendingAppend[] = [];
  #writing = false;
  readonly #idleWaiters: (() => void)[] = [];
  /** Set when a failed write could not be undone: appending further would corrupt the log. */
  #broken: unknown;
  #closed = false;
  readonly #listeners = new Set<() => void>();

  constructor(options: TopicLogOptions) {
    this.#options = options;
    this.#cacheLimit = options.cachedSegments ?? 2;
    this.ready = this.#open();
  }

  get topic(): string {
    return this.#options.topic;
  }

  /** Offset of the oldest record still kept. Valid after `ready`. */
  get start(): number {
    return this.#sealed[0] ?? this.#active.base;
  }

  /** Offset the next appended record will get. Valid after `ready`. */
  get end(): number {
    return this.#active.base + this.#active.records.length;
  }

  /** Calls `listener` after every successful append; returns the unsubscribe function. */
  onAppend(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once `records` are written (and synced), in order after every earlier append. */
  append(records: readonly EventRecord[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`topic ${this.topic} is closed`));
    if (records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ records, resolve, reject });
      this.#startWriter();
    });
  }

  /** Up to `max` records from `from` on, never across a segment boundary; [] at the end. */
  async read(from: number, max: number): Promise<readonly EventRecord[]> {
    await this.ready;
    if (from >= this.end) return [];
    if (from < this.start) {
      throw new RangeError(`offset ${from} of ${this.topic} is below retention (start ${this.start})`);
    }
    const active = this.#active;
    if (from >= active.base) {
      return active.records.slice(from - active.base, from - active.base + max);
    }
    let index = this.#sealed.length - 1;
    while (index > 0 && (this.#sealed[index] ?? 0) > from) index -= 1;
    const base = this.#sealed[index] ?? 0;
    const next = this.#sealed[index + 1] ?? active.base;
    const records = await this.#loadSealed(base, next - base);
    return records.slice(from - base, from - base + max);
  }

  /**
   * Deletes, oldest first, every sealed segment whose records all lie below `offset` (the
   * smallest position any known group still needs) and that was sealed at or before
   * `sealedBefore` (ms since the epoch). The active segment is never deleted. Returns how many
   * files went.
   */
  async truncateBefore(offset: number, sealedBefore: number): Promise<number> {
    await this.ready;
    const doomed: number[] = [];
    for (;;) {
      const first = this.#sealed[0];
      if (first === undefined) break;
      const next = this.#sealed[1] ?? this.#active.base;
      if (next > offset || (this.#sealedAt.get(first) ?? 0) > sealedBefore) break;
      this.#sealed.shift();
      this.#sealedAt.delete(first);
      this.#cache.delete(first);
      doomed.push(first);
    }
    for (const base of doomed) {
      await unlink(this.#path(base)).catch((error: unknown) => {
        if (!isErrno(error, "ENOENT")) throw error;
      });
    }
    return doomed.length;
  }

  /** Waits for queued appends, then closes the file. Later appends reject. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#writing) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    this.#listeners.clear();
    await this.ready.catch(() => undefined);
    const file = this.#file;
    this.#file = undefined;
    await file?.close();
  }

  async #open(): Promise<void> {
    const { dir } = this.#options;
    await mkdir(dir, { recursive: true });
    const bases = (await readdir(dir))
      .map((name) => segmentFile.exec(name)?.[1])
      .filter((digits) => digits !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    const last = bases.pop();
    if (last === undefined) return;
    this.#sealed = bases;
    for (const base of bases) this.#sealedAt.set(base, (await stat(this.#path(base))).mtimeMs);
    const path = this.#path(last);
    const content = await readFile(path);
    const validBytes = content.lastIndexOf(newline) + 1;
    if (validBytes < content.length) {
      // A write torn by a crash: its publisher was never told it succeeded, so dropping the
      // partial line loses nothing that was acknowledged.
      this.#options.logger.warn(
        { topic: this.topic, file: path, droppedBytes: content.length - validBytes },
        "embedded bus: dropping the torn tail of a topic log",
      );
      await truncate(path, validBytes);
    }
    const records = parseLines(content.subarray(0, validBytes), path);
    this.#active = { base: last, bytes: validBytes, records };
  }

  #startWriter(): void {
    if (this.#writing) return;
    this.#writing = true;
    void this.#runWriter();
  }

  /** Never rejects: every queued append is settled, and `#writing` drops in the same tick. */
  async #runWriter(): Promise<void> {
    try {
      await this.ready;
    } catch (error) {
      for (const pending of this.#queue.splice(0)) pending.reject(error);
      this.#stopWriter();
      return;
    }
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0);
      try {
        await this.#write(batch.flatMap((pending) => pending.records));
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    this.#stopWriter();
  }

  #stopWriter(): void {
    this.#writing = false;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  async #write(records: readonly EventRecord[]): Promise<void> {
    if (this.#broken !== undefined) {
      throw new Error(`topic log ${this.topic} is unusable after a failed write`, { cause: this.#broken });
    }
    const payload = Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(""), "utf8");
    if (this.#active.bytes > 0 && this.#active.bytes + payload.length > this.#options.segmentBytes) {
      await this.#roll();
    }
    const file = await this.#activeFile();
    try {
      await writeFully(file, payload);
      if (this.#options.fsync) await file.datasync();
    } catch (error) {
      // Undo a partial write so that the next record starts on a line of its own.
      await file.truncate(this.#active.bytes).catch((truncateError: unknown) => {
        this.#broken = truncateError;
      });
      throw error;
    }
    this.#active.bytes += payload.length;
    for (const record of records) this.#active.records.push(record);
    for (const listener of this.#listeners) listener();
  }

  async #activeFile(): Promise<FileHandle> {
    if (this.#file !== undefined) return this.#file;
    const created = this.#active.bytes === 0;
    this.#file = await open(this.#path(this.#active.base), "a");
    if (created && this.#options.fsync) await syncDirectory(this.#options.dir);
    return this.#file;
  }

  async #roll(): Promise<void> {
    const file = this.#file;
    this.#file = undefined;
    await file?.close();
    const sealed = this.#active;
    this.#sealed.push(sealed.base);
    this.#sealedAt.set(sealed.base, Date.now());
    this.#remember(sealed.base, sealed.records);
    this.#active = { base: sealed.base + sealed.records.length, bytes: 0, records: [] };
  }

  async #loadSealed(base: number, count: number): Promise<readonly EventRecord[]> {
    const cached = this.#cache.get(base);
    if (cached !== undefined) return cached;
    const path = this.#path(base);
    const content = await readFile(path);
    if (content.length > 0 && content[content.length - 1] !== newline) {
      throw new Error(`corrupt topic log ${path}: a sealed segment ends mid-line`);
    }
    const records = parseLines(content, path);
    if (records.length !== count) {
      throw new Error(`corrupt topic log ${path}: ${records.length} records, expected ${count}`);
    }
    this.#remember(base, records);
    return records;
  }

  #remember(base: number, records: readonly EventRecord[]): void {
    this.#cache.delete(base);
    this.#cache.set(base, records);
    for (const key of this.#cache.keys()) {
      if (this.#cache.size <= this.#cacheLimit) break;
      this.#cache.delete(key);
    }
  }

  #path(base: number): string {
    return join(this.#options.dir, segmentName(base));
  }
}

function parseLines(content: Buffer, path: string): EventRecord[] {
  const text = content.toString("utf8");
  if (text === "") return [];
  const lines = text.split("\n");
  lines.pop(); // the empty string after the final newline
  return lines.map((line, index) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new Error(`corrupt topic log ${path}: line ${index + 1} is not JSON`, { cause: error });
    }
    const record = normalizeEventRecord(parsed);
    if (record === undefined) {
      throw new Error(`corrupt topic log ${path}: line ${index + 1} is not an event record`);
    }
    return record;
  });
}

async function writeFully(file: FileHandle, payload: Buffer): Promise<void> {
  let written = 0;
  while (written < payload.length) {
    const { bytesWritten } = await file.write(payload, written, payload.length - written);
    written += bytesWritten;
  }
}

/** Makes a newly created file's directory entry durable (POSIX needs the directory synced). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
