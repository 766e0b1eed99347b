/**
 * Password hashing per OWASP's Password Storage Cheat Sheet: argon2id, m = 19 MiB, t = 2, p = 1.
 * The PHC string stores its own parameters, so raising them later still verifies old hashes.
 *
 * Hashing at that cost takes a core for about 10 ms, so it is bounded: a caller is admitted
 * first (or refused with 503 and `Retry-After` when every place is taken), and its hashes then
 * run at most `concurrency` at a time, on low-priority threads (password-threads.ts). Unbounded,
 * a login flood starved every other request of the process (ADR 0029).
 */
import { availableParallelism } from "node:os";
import { createBoundedWork, type BoundedWorkLimits } from "@commerce/runtime/concurrency";
import { busy } from "@commerce/runtime/errors";
import { createPasswordThreads } from "./password-threads.js";

export interface PasswordHasher {
  /** One caller's password work; throws 503 (busy) when the bound is reached. Must be ended. */
  admit(): PasswordWork;
  /** Ends the hashing threads. */
  close(): Promise<void>;
}

export interface PasswordWork {
  hash(password: string): Promise<string>;
  /** Constant-time comparison inside argon2's verify. */
  verify(hashed: string, password: string): Promise<boolean>;
  /**
   * Spends the same time as a real verification against a fixed hash, so that a login for an
   * unknown account takes as long as one for a known account with a wrong password.
   */
  verifyDummy(password: string): Promise<void>;
  /** Gives the caller's place back; idempotent. */
  end(): void;
}

/**
 * One hash at a time per core but one (the event loop keeps a core of its own), and up to 32
 * callers waiting per running hash: a hash takes about 10 ms here, so at most about a third of a
 * second of queueing, while bursts of registrations and logins still get through.
 */
export function defaultPasswordWorkLimits(): BoundedWorkLimits {
  const concurrency = Math.max(1, availableParallelism() - 1);
  return { concurrency, queue: 32 * concurrency };
}

/** Argon2id is the library's default algorithm (its enum is ambient, unusable here). */
const options = {
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
};

/** Seconds a refused caller is told to wait: a place frees within a few hashes. */
const busyRetryAfterSeconds = 1;

export function createPasswordHasher(
  limits: BoundedWorkLimits = defaultPasswordWorkLimits(),
): PasswordHasher {
  const work = createBoundedWork(limits);
  const threads = createPasswordThreads(limits.concurrency, options);
  let dummy: Promise<string> | undefined;
  return {
    close: () => threads.close(),
    admit() {
      const admission = work.admit();
      if (admission === undefined) {
        throw busy("too many logins at once; retry in a moment", busyRetryAfterSeconds);
      }
      return {
        hash: (password) => admission.run(() => threads.hash(password)),
        // A malformed stored hash never verifies.
        verify: (hashed, password) => admission.run(() => threads.verify(hashed, password)),
        async verifyDummy(password) {
          dummy ??= admission.run(() => threads.hash("dummy password for timing equalisation"));
          const fixed = await dummy;
          await admission.run(() => threads.verify(fixed, password));
        },
        end: () => admission.end(),
      };
    },
  };
}
