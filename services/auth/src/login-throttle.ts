/**
 * Throttles password guessing per account: after `maxFailures` failed logins within `windowMs`,
 * further attempts for that email are refused (429) until the oldest failure leaves the window.
 * Unknown emails are throttled the same way, so the throttle reveals nothing about existence.
 *
 * Each failure is its own document (an insert is atomic on every backend; a shared counter
 * would need an atomic `$inc`, which FerretDB lacks). Expired failures are swept periodically
 * because FerretDB has no TTL indexes.
 */
import type { Collection } from "@commerce/runtime/store/document-store.js";
import type { LoginFailureDocument } from "./account-store.js";

export interface LoginThrottlePolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
}

export const defaultLoginThrottlePolicy: LoginThrottlePolicy = { maxFailures: 5, windowMs: 15 * 60 * 1000 };

export interface LoginThrottle {
  /** Seconds until the next attempt is allowed, or 0 when allowed now. */
  retryAfter(email: string, now: Date, signal?: AbortSignal): Promise<number>;
  recordFailure(email: string, now: Date): Promise<void>;
  /** A successful login forgets the account's failures. */
  reset(email: string): Promise<void>;
  /** Deletes failures older than the window, at most `limit` per call. */
  sweep(now: Date, limit?: number): Promise<number>;
}

export function createLoginThrottle(
  failures: Collection<LoginFailureDocument>,
  policy: LoginThrottlePolicy,
): LoginThrottle {
  return {
    async retryAfter(email, now, signal) {
      const since = now.getTime() - policy.windowMs;
      const recent = await failures.find(
        { email, at: { $gt: since } },
        { sort: [{ field: "at", direction: -1 }], limit: policy.maxFailures, ...(signal ? { signal } : {}) },
      );
      if (recent.length < policy.maxFailures) return 0;
      const oldest = recent[recent.length - 1]?.at ?? now.getTime();
      return Math.max(1, Math.ceil((oldest + policy.windowMs - now.getTime()) / 1000));
    },
    async recordFailure(email, now) {
      await failures.insert({ _id: crypto.randomUUID(), email, at: now.getTime() });
    },
    async reset(email) {
      for (const failure of await failures.find({ email })) await failures.delete(failure._id);
    },
    async sweep(now, limit = 500) {
      const expired = await failures.find({ at: { $lte: now.getTime() - policy.windowMs } }, { limit });
      for (const failure of expired) await failures.delete(failure._id);
      return expired.length;
    },
  };
}
