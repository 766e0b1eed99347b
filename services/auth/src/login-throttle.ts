/**
 * Throttles password guessing per account: at most `maxAttempts` password checks per email
 * within any `windowMs`, however many logins arrive at once. A successful login frees the
 * account's attempts. Unknown emails are throttled the same way, so the throttle reveals nothing
 * about existence.
 *
 * A login must claim an attempt before its password is checked. Each email has `maxAttempts`
 * slot documents (`<email>#<slot>`); a claim takes a slot that does not exist yet (a unique
 * insert) or one whose attempt has left the window (a compare-and-set on its version). Both are
 * atomic on every backend we run, unlike a counter (FerretDB's conditional updates are not), so
 * of concurrent claims on one slot exactly one wins, and a sixth concurrent login finds every
 * slot taken (ADR 0030).
 *
 * Expired slots are swept periodically (FerretDB has no TTL indexes). The sweeper retires a slot
 * with a compare-and-set before it deletes it, and claims skip retired slots, so a deletion can
 * never remove a slot that a login has just claimed.
 */
import { DuplicateKeyError, type Collection } from "@commerce/runtime/store";
import type { LoginAttemptDocument } from "./account-store.js";

export interface LoginThrottlePolicy {
  readonly maxAttempts: number;
  readonly windowMs: number;
}

export const defaultLoginThrottlePolicy: LoginThrottlePolicy = { maxAttempts: 5, windowMs: 15 * 60 * 1000 };

export interface LoginThrottle {
  /**
   * Claims one password check for `email` at `now`: 0 when granted, else the seconds until an
   * attempt leaves the window.
   */
  claim(email: string, now: Date, signal?: AbortSignal): Promise<number>;
  /** A successful login frees the account's attempts. */
  reset(email: string, signal?: AbortSignal): Promise<void>;
  /** Deletes slots whose attempt left the window, at most `limit` per call. */
  sweep(now: Date, limit?: number): Promise<number>;
}

/** How long a login waits for a slot that the sweeper is deleting. */
const retiredRetrySeconds = 1;

export function createLoginThrottle(
  attempts: Collection<LoginAttemptDocument>,
  policy: LoginThrottlePolicy,
): LoginThrottle {
  const slotIds = (email: string): string[] =>
    Array.from({ length: policy.maxAttempts }, (_, slot) => `${email}#${slot}`);

  /**
   * Takes the slot `id` for an attempt at `at`. Refused, it answers the slot as it found it in
   * use, or undefined when another login took it first (then its `at` is only known by reading).
   */
  async function take(
    id: string,
    email: string,
    at: number,
    signal?: AbortSignal,
  ): Promise<{ taken: true } | { taken: false; inUse: LoginAttemptDocument | undefined }> {
    const slot = await attempts.get(id, signal);
    if (slot === undefined) {
      try {
        await attempts.insert({ _id: id, _v: 1, email, at, retired: false }, signal);
        return { taken: true };
      } catch (error) {
        if (error instanceof DuplicateKeyError) return { taken: false, inUse: undefined };
        throw error;
      }
    }
    if (slot.retired || slot.at > at - policy.windowMs) return { taken: false, inUse: slot };
    if (await attempts.swap({ ...slot, at, _v: slot._v + 1 }, slot._v, signal)) return { taken: true };
    return { taken: false, inUse: undefined };
  }

  return {
    async claim(email, now, signal) {
      const at = now.getTime();
      const refused: { id: string; inUse: LoginAttemptDocument | undefined }[] = [];
      for (const id of slotIds(email)) {
        const outcome = await take(id, email, at, signal);
        if (outcome.taken) return 0;
        refused.push({ id, inUse: outcome.inUse });
      }
      // Every slot is in use: the next one frees when its attempt leaves the window. Slots lost
      // to a faster login are read again for their time. A concurrent login may have stamped
      // its slot a moment after this one's `now`: never more than the window.
      const slots = await Promise.all(
        refused.map(({ id, inUse }) =>
          inUse !== undefined ? Promise.resolve(inUse) : attempts.get(id, signal),
        ),
      );
      let wait = policy.windowMs;
      for (const slot of slots) {
        const frees =
          slot === undefined ? 0 : slot.retired ? retiredRetrySeconds * 1000 : slot.at + policy.windowMs - at;
        wait = Math.min(wait, frees);
      }
      return Math.max(1, Math.ceil(wait / 1000));
    },

    async reset(email, signal) {
      for (const id of slotIds(email)) await attempts.delete(id, signal);
    },

    async sweep(now, limit = 500) {
      const expired = await attempts.find({ at: { $lte: now.getTime() - policy.windowMs } }, { limit });
      let deleted = 0;
      for (const slot of expired) {
        const retiring =
          slot.retired || (await attempts.swap({ ...slot, retired: true, _v: slot._v + 1 }, slot._v));
        if (retiring && (await attempts.delete(slot._id))) deleted++;
      }
      return deleted;
    },
  };
}
