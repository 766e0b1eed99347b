/**
 * Committed positions of the embedded bus's consumer groups: one small append-only file per
 * group and topic (`groups/<group>/<topic>.offsets`), one decimal position per line; the last
 * complete line is the position. The offset is the next record the group needs (Kafka's
 * convention).
 *
 * A position is written after every handled record, before the next one is delivered, so a
 * crash redelivers at most the record that was in flight. Why append-only: a commit is then a
 * single write to an open file — a rewrite-and-rename per consumed record cost four file
 * operations and capped a group at about a thousand records a second. A torn last line (crash
 * mid-write) is cut off on open, leaving the previous position. The file is compacted (rewritten
 * to one line through a temporary file and a rename) when first written after opening and
 * whenever it outgrows `compactBytes`.
 *
 * Why no fsync here (the topic log has one): losing a position to a power cut only rewinds the
 * group, and consumers are idempotent by event id (ADR 0039), so a sync per consumed record
 * would buy nothing.
 */
import {
  mkdir,
  open,
  readFile,
  readdir,
  rename,
  rm,
  truncate,
  unlink,
  writeFile,
  type FileHandle,
} from "node:fs/promises";
import { dirname, join } from "node:path";
import type { EventLogger } from "./event-logger.js";
import { isErrno } from "./topic-log.js";

const offsetsFile = /^(.+)\.offsets$/;
const tempFile = /\.offsets\.tmp$/;
const defaultCompactBytes = 64 * 1024;

export interface ConsumerOffsets {
  /** The committed position, or undefined for a group that never consumed the topic. */
  get(group: string, topic: string): number | undefined;
  /** The smallest committed position on `topic` over every group ever seen (retention's floor). */
  minCommitted(topic: string): number | undefined;
  /** Persists a position; commits for the same group and topic are applied in call order. */
  commit(group: string, topic: string, offset: number): Promise<void>;
  /** Deletes every position of `group`, after the commits in flight; nothing commits meanwhile. */
  forget(group: string): Promise<void>;
  /** Waits for commits in flight and closes the files. */
  close(): Promise<void>;
}

interface OffsetsFile {
  readonly path: string;
  handle: FileHandle | undefined;
  bytes: number;
  /** The tail of the commit queue for this file: commits run one after another. */
  queue: Promise<void>;
}

/** Loads every group's positions from `dir` (created if missing). */
export async function openConsumerOffsets(
  dir: string,
  logger: EventLogger,
  compactBytes = defaultCompactBytes,
): Promise<ConsumerOffsets> {
  const committed = new Map<string, Map<string, number>>();
  const files = new Map<string, OffsetsFile>();

  function topicsOf(group: string): Map<string, number> {
    let topics = committed.get(group);
    if (topics === undefined) {
      topics = new Map();
      committed.set(group, topics);
    }
    return topics;
  }

  await mkdir(dir, { recursive: true });
  for (const group of await readdir(dir)) {
    const groupDir = join(dir, group);
    let names: string[];
    try {
      names = await readdir(groupDir);
    } catch (error) {
      if (isErrno(error, "ENOTDIR")) continue;
      throw error;
    }
    for (const name of names) {
      const path = join(groupDir, name);
      if (tempFile.test(name)) {
        // A compaction interrupted before its rename: the file it replaces is still whole.
        await unlink(path);
        continue;
      }
      const topic = offsetsFile.exec(name)?.[1];
      if (topic === undefined) continue;
      const content = await readFile(path, "utf8");
      const complete = content.lastIndexOf("\n") + 1;
      if (complete < content.length) await truncate(path, Buffer.byteLength(content.slice(0, complete)));
      const offset = lastOffset(content.slice(0, complete));
      if (offset === undefined) {
        // Rewinding to the start of retention only redelivers; consumers are idempotent.
        logger.warn(
          { group, topic, file: path },
          "embedded bus: unreadable consumer offset, the group restarts from the earliest record",
        );
        continue;
      }
      topicsOf(group).set(topic, offset);
    }
  }

  /** Rewrites the file to the single line `offset` and reopens it for appending. */
  async function compact(file: OffsetsFile, offset: number): Promise<void> {
    await file.handle?.close();
    file.handle = undefined;
    await mkdir(dirname(file.path), { recursive: true });
    const line = `${offset}\n`;
    await writeFile(`${file.path}.tmp`, line);
    await rename(`${file.path}.tmp`, file.path);
    file.handle = await open(file.path, "a");
    file.bytes = line.length;
  }

  async function write(file: OffsetsFile, offset: number): Promise<void> {
    if (file.handle === undefined || file.bytes >= compactBytes) {
      await compact(file, offset);
      return;
    }
    const line = `${offset}\n`;
    await file.handle.write(line);
    file.bytes += line.length;
  }

  function fileOf(group: string, topic: string): OffsetsFile {
    const key = `${group}\u0000${topic}`;
    let file = files.get(key);
    if (file === undefined) {
      file = {
        path: join(dir, group, `${topic}.offsets`),
        handle: undefined,
        bytes: 0,
        queue: Promise.resolve(),
      };
      files.set(key, file);
    }
    return file;
  }

  return {
    get: (group, topic) => committed.get(group)?.get(topic),
    minCommitted(topic) {
      let min: number | undefined;
      for (const topics of committed.values()) {
        const offset = topics.get(topic);
        if (offset !== undefined && (min === undefined || offset < min)) min = offset;
      }
      return min;
    },
    commit(group, topic, offset) {
      // Queued synchronously, so commits of one file are written in call order.
      const file = fileOf(group, topic);
      const done = file.queue.then(async () => {
        await write(file, offset);
        topicsOf(group).set(topic, offset);
      });
      file.queue = done.catch(() => undefined);
      return done;
    },
    async forget(group) {
      for (const [key, file] of files) {
        if (!key.startsWith(`${group}\u0000`)) continue;
        await file.queue;
        await file.handle?.close();
        files.delete(key);
      }
      committed.delete(group);
      await rm(join(dir, group), { recursive: true, force: true });
    },
    async close() {
      for (const file of files.values()) {
        await file.queue;
        await file.handle?.close();
        file.handle = undefined;
      }
    },
  };
}

function lastOffset(text: string): number | undefined {
  const lines = text.split("\n");
  const last = lines.at(-2);
  if (last === undefined || !/^\d{1,16}$/.test(last)) return undefined;
  const offset = Number(last);
  return Number.isSafeInteger(offset) ? offset : undefined;
}
