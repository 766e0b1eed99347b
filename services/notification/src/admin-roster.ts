/**
 * Who the admins are, as far as auth events tell: USER_REGISTERED with role ADMIN and
 * USER_ROLE_CHANGED to ADMIN make an account an admin, USER_ROLE_CHANGED to another role stops
 * it, and USER_DELETED removes it for good. Catalog notices (a new product, a product out of
 * stock) go to the admins listed here, by user id.
 *
 * Kept per account (user id), in this service's own database (database per service): events of
 * one account arrive in order, but those of a deleted account and of a new account that took its
 * email may not (different keys, different partitions), so the roster never reasons by email. A
 * deleted account is kept as a tombstone, so nothing that arrives after its deletion makes it an
 * admin again. Every change is idempotent: a redelivered event changes nothing.
 */
import { changeDocument, unchanged, DuplicateKeyError, type Collection } from "@commerce/runtime/store";
import type { AdminAccountDocument, LegacyAdminDocument } from "./notification-store.js";

export interface AdminRoster {
  /** Account `userId` (with `email`) is an admin from now on, unless it was deleted. */
  promote(userId: number, email: string, signal?: AbortSignal): Promise<void>;
  /** Account `userId` is no admin any more (its role changed). */
  demote(userId: number, email: string, signal?: AbortSignal): Promise<void>;
  /** Account `userId` was deleted: never an admin again. */
  remove(userId: number, email: string, signal?: AbortSignal): Promise<void>;
  /**
   * Every admin, by email order, one per email: the latest account of it (the highest id). Two
   * entries share an email only while a deleted admin's USER_DELETED has not arrived after its
   * email's new account was made an admin, and ids grow with each account.
   */
  admins(signal?: AbortSignal): Promise<Admin[]>;
  /** Takes over the admins of the earlier roster (keyed by email), once per start; idempotent. */
  carryOver(legacy: Collection<LegacyAdminDocument>): Promise<void>;
}

/** An admin account: its user id, and its email (shown). */
export interface Admin {
  readonly userId: number;
  readonly email: string;
}

type Change = Pick<AdminAccountDocument, "admin" | "deleted">;

export function createAdminRoster(accounts: Collection<AdminAccountDocument>): AdminRoster {
  /** Applies `change` to the account's entry, creating it when absent; a tombstone stays. */
  async function apply(userId: number, email: string, change: Change, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const outcome = await changeDocument(
        accounts,
        userId,
        (current) =>
          current.deleted || (current.admin === change.admin && current.deleted === change.deleted)
            ? unchanged
            : { ...current, ...change },
        signal,
      );
      if (outcome !== undefined) return;
      try {
        await accounts.insert({ _id: userId, _v: 1, email, ...change }, signal);
        return;
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error; // created meanwhile: change it
      }
    }
  }

  return {
    promote: (userId, email, signal) => apply(userId, email, { admin: true, deleted: false }, signal),
    demote: (userId, email, signal) => apply(userId, email, { admin: false, deleted: false }, signal),
    remove: (userId, email, signal) => apply(userId, email, { admin: false, deleted: true }, signal),

    async admins(signal) {
      const listed = await accounts.find({ admin: true }, signal === undefined ? {} : { signal });
      const latest = new Map<string, Admin>();
      for (const account of listed) {
        const known = latest.get(account.email);
        if (known === undefined || known.userId < account._id) {
          latest.set(account.email, { userId: account._id, email: account.email });
        }
      }
      return [...latest.values()].sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
    },

    async carryOver(legacy) {
      for (const admin of await legacy.find({})) {
        try {
          await accounts.insert({ _id: admin.userId, _v: 1, email: admin._id, admin: true, deleted: false });
        } catch (error) {
          if (!(error instanceof DuplicateKeyError)) throw error; // known already
        }
      }
    },
  };
}
