/**
 * Argon2 on threads of its own, at a lower CPU priority than the threads that serve requests:
 * when a login flood and catalog reads compete for the cores, the reads win and the logins wait
 * (their number is bounded by password-hasher.ts). Measured on 2 cores: with hashing at normal
 * priority, catalog reads beside a login flood halved in throughput and their p99 doubled
 * (ADR 0029).
 *
 * The thread's code is a short CommonJS script (`eval`), so it runs the same from the sources
 * under tsx and from the compiled build. Lowering a thread's priority is Linux's per-thread
 * `setpriority`; elsewhere the threads keep the normal priority.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

export interface Argon2Options {
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

export interface PasswordThreads {
  hash(password: string): Promise<string>;
  /** False for a wrong password and for a malformed stored hash. */
  verify(hashed: string, password: string): Promise<boolean>;
  /** Ends the threads; pending work fails. */
  close(): Promise<void>;
}

/** Niceness of the hashing threads (0 is normal, 19 the lowest priority). */
const hashingNiceness = 10;

const threadSource = (argon2: string): string => `
const { parentPort } = require("node:worker_threads");
const { readlinkSync } = require("node:fs");
const { setPriority } = require("node:os");
const { hashSync, verifySync } = require(${JSON.stringify(argon2)});
try {
  setPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()), ${hashingNiceness});
} catch {}
parentPort.on("message", (job) => {
  try {
    const value = job.op === "hash" ? hashSync(job.password, job.options) : verifySync(job.hashed, job.password);
    parentPort.postMessage({ value });
  } catch {
    parentPort.postMessage({ failed: true });
  }
});
`;

type Job =
  | { readonly op: "hash"; readonly password: string; readonly options: Argon2Options }
  | { readonly op: "verify"; readonly hashed: string; readonly password: string };

interface Pending {
  readonly job: Job;
  resolve(value: { value?: unknown; failed?: boolean }): void;
  reject(error: Error): void;
}

export function createPasswordThreads(size: number, options: Argon2Options): PasswordThreads {
  const source = threadSource(createRequire(import.meta.url).resolve("@node-rs/argon2"));
  const idle: Worker[] = [];
  const busy = new Map<Worker, Pending>();
  const queue: Pending[] = [];
  let closed = false;

  function spawn(): Worker {
    const worker = new Worker(source, { eval: true });
    worker.unref();
    worker.on("message", (answer: { value?: unknown; failed?: boolean }) => {
      const pending = busy.get(worker);
      busy.delete(worker);
      pending?.resolve(answer);
      next(worker);
    });
    // Whatever the thread threw: not always an Error (@types/node types it `any`).
    worker.on("error", (error: unknown) => {
      busy
        .get(worker)
        ?.reject(error instanceof Error ? error : new Error(`a password thread threw ${String(error)}`));
      busy.delete(worker);
    });
    worker.on("exit", () => {
      busy.get(worker)?.reject(new Error("a password thread exited"));
      busy.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      if (!closed && queue.length > 0) next(spawn());
    });
    return worker;
  }

  /** Gives `worker` the next queued job, or parks it. */
  function next(worker: Worker): void {
    const pending = queue.shift();
    if (pending === undefined) {
      idle.push(worker);
      return;
    }
    busy.set(worker, pending);
    worker.postMessage(pending.job);
  }

  function run(job: Job): Promise<{ value?: unknown; failed?: boolean }> {
    if (closed) return Promise.reject(new Error("the password threads are closed"));
    return new Promise((resolve, reject) => {
      queue.push({ job, resolve, reject });
      const worker = idle.pop() ?? (busy.size < size ? spawn() : undefined);
      if (worker !== undefined) next(worker);
    });
  }

  return {
    async hash(password) {
      const answer = await run({ op: "hash", password, options });
      if (answer.failed === true || typeof answer.value !== "string") throw new Error("hashing failed");
      return answer.value;
    },
    async verify(hashed, password) {
      const answer = await run({ op: "verify", hashed, password });
      return answer.failed !== true && answer.value === true;
    },
    async close() {
      closed = true;
      for (const pending of queue.splice(0)) pending.reject(new Error("the password threads are closed"));
      await Promise.all([...idle, ...busy.keys()].map((worker) => worker.terminate()));
    },
  };
}
