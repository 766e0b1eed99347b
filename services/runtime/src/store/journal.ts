/**
 * The file behind one embedded collection: an append-only log of JSON lines, each the full new
 * state of one document (`{"put":{…}}`) or its removal (`{"delete":<id>}`).
 *
 * Why whole-document records: replaying them is idempotent (the last record of an id wins), so
 * a compaction may snapshot state that includes records not yet appended, and a torn final
 * line (a crash during an append) can simply be dropped: its write was never acknowledged.
 *
 * Why group commit: records appended during one tick, or while a write is in flight, go out in
 * the next single write; each `append` resolves once its record is in the file. That write is
 * synchronous: a few kilobytes into the page cache cost less than the promise machinery of an
 * asynchronous one, which was a tenth to a fifth of a service's busy time under the order load
 * (`scripts/bench/order-cost-bench.ts`). No fsync: the
 * embedded store survives a process crash, not a power loss (the event log makes the same
 * trade, ADR 0040 asks for "data survives a restart").
 *
 * Compaction rewrites the file to the live documents (temporary file + rename, so a crash
 * leaves either the old or the new file) once it holds many more records than documents.
 */
import { writeSync } from "node:fs";
import { open, readFile, rename, rm, type FileHandle } from "node:fs/promises";
import type { StoredDocument } from "./document-store.js";

export type DocumentId = StoredDocument["_id"];

export type JournalRecord = { readonly put: StoredDocument } | { readonly delete: DocumentId };

export interface JournalOptions {
  readonly file: string;
  /** Receives every record of the file, in order, while the journal opens. */
  readonly replay: (record: JournalRecord) => void;
  /** The live documents, for compaction. */
  readonly live: () => ReadonlyMap<DocumentId, StoredDocument>;
}

/** Compact when the file holds more than this many records … */
const compactMinRecords = 1_000;
/** … and more than this many per live document. */
const compactRatio = 4;

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

function isId(value: unknown): value is DocumentId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function parseRecord(line: string): JournalRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  if ("put" in value) {
    const doc = value.put;
    return typeof doc === "object" && doc !== null && "_id" in doc && isId(doc._id)
      ? { put: doc as StoredDocument }
      : undefined;
  }
  if ("delete" in value && isId(value.delete)) return { delete: value.delete };
  return undefined;
}

/** Writes `text` at the end of the file open for appending as `fd`, however many writes it takes. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
}

function line(record: JournalRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export class Journal {
  private queue: string[] = [];
  private enqueued = 0;
  private written = 0;
  private waiters: Waiter[] = [];
  private flushing = false;
  private failure: Error | undefined;
  private closed = false;

  private constructor(
    private readonly options: JournalOptions,
    private handle: FileHandle,
    private records: number,
  ) {}

  /** Replays the file (creating it if missing) and returns the journal ready for appends. */
  static async open(options: JournalOptions): Promise<Journal> {
    await rm(`${options.file}.compact`, { force: true }); // an interrupted compaction
    let text = "";
    try {
      text = await readFile(options.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const lines = text.split("\n");
    // Every append ends with a newline, so the text after the last one is a torn write.
    const torn = lines.pop() ?? "";
    let records = 0;
    for (const [index, text] of lines.entries()) {
      const record = parseRecord(text);
      if (record === undefined) throw new Error(`${options.file}:${index + 1}: not a journal record`);
      options.replay(record);
      records++;
    }
    const journal = new Journal(options, await open(options.file, "a"), records);
    // Rewrite a torn tail away before anything is appended behind it.
    if (torn !== "" || journal.needsCompaction()) await journal.compact();
    return journal;
  }

  /** Resolves once the record is in the file. */
  append(record: JournalRecord): Promise<void> {
    this.assertWritable();
    this.queue.push(line(record));
    this.enqueued++;
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
    return this.until(this.enqueued);
  }

  /**
   * Resolves once every record appended so far is in the file. Reads wait for it, so nobody
   * acts on state that a crash could still take back.
   */
  settled(): Promise<void> {
    return this.until(this.enqueued);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A failed write was already reported to its caller; closing still releases the file.
    await this.settled().catch(() => undefined);
    await this.handle.close();
  }

  /** Throws if appends are refused; writers call it before they change anything in memory. */
  assertWritable(): void {
    if (this.closed) throw new Error(`${this.options.file}: the store is closed`);
    if (this.failure !== undefined) throw this.failure;
  }

  private until(seq: number): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (seq <= this.written) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        const upTo = this.enqueued;
        this.queue = [];
        writeAll(this.handle.fd, batch.join(""));
        this.records += batch.length;
        this.written = upTo;
        const done = this.waiters.filter((waiter) => waiter.seq <= upTo);
        this.waiters = this.waiters.filter((waiter) => waiter.seq > upTo);
        for (const waiter of done) waiter.resolve();
        if (this.needsCompaction()) await this.compact();
      }
    } catch (error) {
      // Memory is now ahead of the file: refuse further work rather than diverge silently.
      this.failure = new Error(`${this.options.file}: journal write failed; reopen the store`, {
        cause: error,
      });
      for (const waiter of this.waiters) waiter.reject(this.failure);
      this.waiters = [];
    } finally {
      this.flushing = false;
    }
  }

  private needsCompaction(): boolean {
    return this.records > compactMinRecords && this.records > compactRatio * this.options.live().size;
  }

  /** Runs only inside `flush` or `open`, so no append is in flight meanwhile. */
  private async compact(): Promise<void> {
    const snapshot = [...this.options.live().values()].map((doc) => line({ put: doc }));
    const temporary = `${this.options.file}.compact`;
    const file = await open(temporary, "w");
    try {
      await file.writeFile(snapshot.join(""));
      // The one fsync: after the rename the old file is gone, so the new one must be complete.
      await file.datasync();
    } finally {
      await file.close();
    }
    await this.handle.close();
    await rename(temporary, this.options.file);
    this.handle = await open(this.options.file, "a");
    this.records = snapshot.length;
  }
}
