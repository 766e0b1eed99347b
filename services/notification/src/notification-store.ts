/**
 * What the Notification service stores, in its own database: the notifications, and two small
 * projections of other services' events that deciding recipients and texts needs (the admins'
 * emails, the products' names). Nothing here is read from another service's database.
 */
import { createHash } from "node:crypto";
import type {
  Collection,
  CollectionSpec,
  DocumentStore,
  StoredDocument,
  VersionedDocument,
} from "@commerce/runtime/store";

export interface NotificationDocument extends VersionedDocument {
  /** `notificationId(eventId, userEmail)`: a redelivered event hits this unique key. */
  readonly _id: string;
  /** The recipient's lower-cased email, shown only (the contract's `userEmail`). */
  readonly userEmail: string;
  /**
   * The recipient: the user id of the account the event names, which the reads and markRead
   * check (ADR 0100). 0: nobody (an event that named no account's id, or a notification from
   * before recipients were kept by id whose account could not be established): only admins see
   * it. Absent only on a notification stored before, until the recipient backfill gives it one
   * (notification-owners.ts).
   */
  readonly userId?: number;
  /** The contract's name of the event that caused it, e.g. ORDER_PLACED. */
  readonly eventType: string;
  readonly message: string;
  /** The event's time, UTC wall clock YYYY-MM-DDTHH:MM:SS (what clients see). */
  readonly timestamp: string;
  /**
   * The event's time, RFC 3339 UTC with milliseconds: the "newest first" sort key, so that two
   * events of one second (a registration and the first login) keep their real order.
   */
  readonly occurredAt: string;
  /** The CloudEvents id of the event, for tracing a notification back to its cause. */
  readonly eventId: string;
  readonly read: boolean;
}

/**
 * An account that is or was an admin, as auth events tell (admin-roster.ts): the admins are the
 * recipients of catalog notices.
 */
export interface AdminAccountDocument extends VersionedDocument {
  /** The user id: events of one account arrive in order (their key), others' may not. */
  readonly _id: number;
  /** Lower-cased. */
  readonly email: string;
  readonly admin: boolean;
  /** USER_DELETED arrived: never an admin again, whatever arrives later. */
  readonly deleted: boolean;
}

/** The roster before USER_DELETED and USER_ROLE_CHANGED existed, keyed by email; read once. */
export interface LegacyAdminDocument extends StoredDocument {
  /** The admin's lower-cased email. */
  readonly _id: string;
  readonly userId: number;
}

/** A product's name, from PRODUCT_CREATED (names cannot change: only price and stock can). */
export interface ProductNameDocument extends StoredDocument {
  /** The product id. */
  readonly _id: string;
  readonly name: string;
}

export interface NotificationCollections {
  readonly notifications: Collection<NotificationDocument>;
  readonly adminAccounts: Collection<AdminAccountDocument>;
  readonly legacyAdmins: Collection<LegacyAdminDocument>;
  readonly productNames: Collection<ProductNameDocument>;
}

const notificationsSpec: CollectionSpec<NotificationDocument> = {
  name: "notifications",
  indexes: [{ fields: ["userId"] }],
};
const adminAccountsSpec: CollectionSpec<AdminAccountDocument> = {
  name: "admin_accounts",
  indexes: [{ fields: ["admin"] }],
};
const legacyAdminsSpec: CollectionSpec<LegacyAdminDocument> = { name: "admins" };
const productNamesSpec: CollectionSpec<ProductNameDocument> = { name: "product_names" };

export async function openNotificationCollections(store: DocumentStore): Promise<NotificationCollections> {
  return {
    notifications: await store.collection(notificationsSpec),
    adminAccounts: await store.collection(adminAccountsSpec),
    legacyAdmins: await store.collection(legacyAdminsSpec),
    productNames: await store.collection(productNamesSpec),
  };
}

/**
 * The id of the notification that event `eventId` gives `userEmail`: `ntf_` and 22 base64url
 * characters of SHA-256 over both (132 bits). Deterministic, so consuming an event twice
 * inserts the same `_id` twice and the unique `_id` keeps one (an atomic insert is the only
 * primitive this needs, on every backend); opaque, so it reveals neither the event nor the email.
 * An event tells one account per email (two accounts never hold one email at once, and the
 * admins' roster names the latest account of each), so the email is enough, and a notification
 * stored before recipients were kept by id keeps its id when its event is redelivered.
 */
export function notificationId(eventId: string, userEmail: string): string {
  const digest = createHash("sha256").update(eventId).update("\n").update(userEmail).digest("base64url");
  return `ntf_${digest.slice(0, 22)}`;
}
