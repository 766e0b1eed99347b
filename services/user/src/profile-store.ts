/**
 * What the User service stores, in its own database: profiles (sharing the Auth account's
 * integer id) and addresses (integer ids of their own, each owned by one user's email).
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
  /** The owner's email (the identity the edge asserts). */
  readonly owner: string;
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
  indexes: [{ fields: ["owner"] }],
};

export async function openProfileCollections(store: DocumentStore): Promise<ProfileCollections> {
  return {
    profiles: await store.collection(profilesSpec),
    addresses: await store.collection(addressesSpec),
    addressIds: await store.collection(idClaimsSpec(addressesSpec.name)),
  };
}
