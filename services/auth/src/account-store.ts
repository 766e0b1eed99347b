/**
 * What the Auth service stores, in its own database: accounts (credentials and role), recent
 * login failures (for throttling), and documents that only carry events.
 */
import type { EventCarrierDocument, OutboxCarrier } from "@commerce/runtime/events/outbox.js";
import type { Role } from "@commerce/runtime/identity/caller.js";
import type {
  Collection,
  CollectionSpec,
  DocumentStore,
  StoredDocument,
} from "@commerce/runtime/store/document-store.js";

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
}

/** One failed login, kept for the throttling window. */
export interface LoginFailureDocument extends StoredDocument {
  readonly _id: string;
  readonly email: string;
  /** Epoch milliseconds. */
  readonly at: number;
}

export interface AccountCollections {
  readonly accounts: Collection<AccountDocument>;
  readonly loginFailures: Collection<LoginFailureDocument>;
  readonly eventCarriers: Collection<EventCarrierDocument>;
}

const accountsSpec: CollectionSpec<AccountDocument> = {
  name: "accounts",
  indexes: [{ fields: ["email"], unique: true }, { fields: ["outboxPending"] }],
};
const loginFailuresSpec: CollectionSpec<LoginFailureDocument> = {
  name: "login_failures",
  indexes: [{ fields: ["email"] }, { fields: ["at"] }],
};
const eventCarriersSpec: CollectionSpec<EventCarrierDocument> = {
  name: "event_carriers",
  indexes: [{ fields: ["outboxPending"] }],
};

export async function openAccountCollections(store: DocumentStore): Promise<AccountCollections> {
  return {
    accounts: await store.collection(accountsSpec),
    loginFailures: await store.collection(loginFailuresSpec),
    eventCarriers: await store.collection(eventCarriersSpec),
  };
}
