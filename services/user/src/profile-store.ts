/**
 * What the User service stores, in its own database: profiles (sharing the Auth account's
 * integer id) and addresses (integer ids of their own, each owned by one account's user id).
 */
import type { Role } from "@commerce/runtime/identity";
import {
  type Collection,
  type CollectionSpec,
  type DocumentStore,
  type VersionedDocument,
  idClaimsSpec,
  type IdClaimDocument,
} from "@commerce/runtime/store";

export interface ProfileDocument extends VersionedDocument {
  readonly _id: number;
  readonly email: string;
  readonly fullName: string;
  readonly phoneNo: string;
  readonly role: Role;
  readonly createdAt: string;
}

export interface AddressDocument extends VersionedDocument {
  readonly _id: number;
  /** The owner's email when the address was added (kept, never compared). */
  readonly owner: string;
  /**
   * The owner: the user id of the account that added it, which every read and write checks
   * (ADR 0100). 0: nobody (an address from before owners were kept by id whose account could
   * not be established). Absent only on an address added before, until the owner backfill gives
   * it one (address-owners.ts).
   */
  readonly ownerId?: number;
  readonly street: string;
  readonly city: string;
  readonly state: string;
  readonly pincode: string;
}

export interface ProfileCollections {
  readonly profiles: Collection<ProfileDocument>;
  readonly addresses: Collection<AddressDocument>;
  /** Every address id ever handed out (sequential-id.ts): a deleted address's id is never reused. */
  readonly addressIds: Collection<IdClaimDocument>;
}

const profilesSpec: CollectionSpec<ProfileDocument> = {
  name: "profiles",
  indexes: [{ fields: ["email"], unique: true }],
};
const addressesSpec: CollectionSpec<AddressDocument> = {
  name: "addresses",
  indexes: [{ fields: ["ownerId"] }],
};

export async function openProfileCollections(store: DocumentStore): Promise<ProfileCollections> {
  return {
    profiles: await store.collection(profilesSpec),
    addresses: await store.collection(addressesSpec),
    addressIds: await store.collection(idClaimsSpec(addressesSpec.name)),
  };
}
