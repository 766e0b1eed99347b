/**
 * What the Auth service stores, in its own database: accounts (credentials and role), the
 * accounts deleted, the login throttle's buckets and the addresses each account logged in from,
 * and documents that only carry events.
 */
import type { EventCarrierDocument, OutboxCarrier } from "@commerce/runtime/events";
import type { Role } from "@commerce/runtime/identity";
import {
  type Collection,
  type CollectionSpec,
  type DocumentStore,
  type StoredDocument,
  type VersionedDocument,
  idClaimsSpec,
  type IdClaimDocument,
} from "@commerce/runtime/store";

/** An account. `_id` is the user id that the User service's profile shares. */
export interface AccountDocument extends OutboxCarrier {
  readonly _id: number;
  /** Lower-cased: emails are unique case-insensitively. */
  readonly email: string;
  readonly fullName: string;
  readonly phoneNo: string;
  /** argon2id PHC string; the password itself is never stored. */
  readonly passwordHash: string;
  readonly role: Role;
  readonly createdAt: string;
  /**
   * Set, with USER_DELETED, by the first step of a deletion (accounts.ts `deleteAccount`): the
   * account no longer logs in, and the document is removed next.
   */
  readonly deletedAt?: string;
}

/**
 * An account that was deleted, kept for good: which email it held and until when, so that a
 * document that names only the email is never given to a later account under it
 * (email-holders.ts, ADR 0101).
 */
export interface FormerAccountDocument extends StoredDocument {
  /** The deleted account's user id. */
  readonly _id: number;
  /** Lower-cased. */
  readonly email: string;
  /** As the account had it; "" when not known (learned from the revocation feed). */
  readonly createdAt: string;
  /** UTC wall clock, YYYY-MM-DDTHH:MM:SS: when the deletion began. */
  readonly deletedAt: string;
}

/**
 * One bucket of the login throttle (login-throttle.ts, throttle-rule.ts): `pair <email>
 * <address>`, `address <address>` or `account <email>`.
 */
export interface LoginThrottleDocument extends VersionedDocument {
  readonly _id: string;
  /** When every check charged to the bucket is forgiven, epoch milliseconds. */
  readonly debtUntil: number;
  /** When the latest check was charged, epoch milliseconds. */
  readonly lastAt: number;
  /** The sweeper is deleting it: logins leave it alone. */
  readonly retired: boolean;
}

/** An address an account logged in from (login-throttle.ts): `<user id> <address>`. */
export interface KnownAddressDocument extends VersionedDocument {
  readonly _id: string;
  /** The latest successful login from it, epoch milliseconds (refreshed once a day at most). */
  readonly lastLoginAt: number;
  /** When it stops being known, epoch milliseconds. */
  readonly expiresAt: number;
}

export interface AccountCollections {
  readonly accounts: Collection<AccountDocument>;
  readonly loginThrottles: Collection<LoginThrottleDocument>;
  readonly knownAddresses: Collection<KnownAddressDocument>;
  /** The attempt slots of the former throttle (ADR 0030): only swept away. */
  readonly formerLoginAttempts: Collection<StoredDocument>;
  readonly eventCarriers: Collection<EventCarrierDocument>;
  readonly formerAccounts: Collection<FormerAccountDocument>;
  /** Every user id ever handed out (sequential-id.ts): a deleted user's id is never reused. */
  readonly accountIds: Collection<IdClaimDocument>;
}

const accountsSpec: CollectionSpec<AccountDocument> = {
  name: "accounts",
  indexes: [{ fields: ["email"], unique: true }, { fields: ["outboxPending"] }],
};
const loginThrottlesSpec: CollectionSpec<LoginThrottleDocument> = {
  name: "login_throttles",
  indexes: [{ fields: ["debtUntil"] }],
};
const knownAddressesSpec: CollectionSpec<KnownAddressDocument> = {
  name: "login_known_addresses",
  indexes: [{ fields: ["expiresAt"] }],
};
const formerLoginAttemptsSpec: CollectionSpec<StoredDocument> = { name: "login_attempts" };
const formerAccountsSpec: CollectionSpec<FormerAccountDocument> = {
  name: "former_accounts",
  indexes: [{ fields: ["email"] }],
};
const eventCarriersSpec: CollectionSpec<EventCarrierDocument> = {
  name: "event_carriers",
  indexes: [{ fields: ["outboxPending"] }],
};

export async function openAccountCollections(store: DocumentStore): Promise<AccountCollections> {
  return {
    accounts: await store.collection(accountsSpec),
    loginThrottles: await store.collection(loginThrottlesSpec),
    knownAddresses: await store.collection(knownAddressesSpec),
    formerLoginAttempts: await store.collection(formerLoginAttemptsSpec),
    eventCarriers: await store.collection(eventCarriersSpec),
    formerAccounts: await store.collection(formerAccountsSpec),
    accountIds: await store.collection(idClaimsSpec(accountsSpec.name)),
  };
}
