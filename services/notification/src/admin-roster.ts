/**
 * Who the admins are, as far as events tell: every USER_REGISTERED with role ADMIN adds its
 * email. Catalog notices (a new product, a product out of stock) go to everyone listed here.
 * Kept in this service's own database (database per service), written with inserts only, so a
 * redelivered registration changes nothing.
 */
import { DuplicateKeyError, type Collection } from "@commerce/runtime/store/document-store.js";
import type { AdminDocument } from "./notification-store.js";

export interface AdminRoster {
  /** Records an admin; idempotent. */
  add(email: string, userId: number, signal?: AbortSignal): Promise<void>;
  /** Every admin's email, sorted. */
  emails(signal?: AbortSignal): Promise<string[]>;
}

export function createAdminRoster(admins: Collection<AdminDocument>): AdminRoster {
  return {
    async add(email, userId, signal) {
      try {
        await admins.insert({ _id: email, userId }, signal);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error; // already known
      }
    },
    async emails(signal) {
      const all = await admins.find({}, signal === undefined ? {} : { signal });
      return all.map((admin) => admin._id).sort();
    },
  };
}
