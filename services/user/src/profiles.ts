/**
 * The User domain: a caller's profile and addresses, each address owned by the account's user
 * id (ADR 0100), and admin management of users. The caller's profile is found by email and must be the account the
 * token was issued for (`caller.userId`): an email freed by a deletion and registered again is
 * another account, which no older token reaches (ADR 0034).
 */
import type { Client } from "@connectrpc/connect";
import { conflict, forbidden, notFound, unauthenticated, unavailable } from "@commerce/runtime/errors";
import type { Caller, Role } from "@commerce/runtime/identity";
import { changeDocument, unchanged, DuplicateKeyError, insertWithNextId } from "@commerce/runtime/store";
import type { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import type { AddressDocument, ProfileCollections, ProfileDocument } from "./profile-store.js";

export interface AddressFields {
  readonly street: string;
  readonly city: string;
  readonly state: string;
  readonly pincode: string;
}

export interface NewProfile {
  readonly userId: number;
  readonly email: string;
  readonly fullName: string;
  readonly phoneNo: string;
  readonly role: Role;
  readonly createdAt: string;
}

export interface Profiles {
  getMe(caller: Caller, signal: AbortSignal): Promise<ProfileDocument>;
  updateMe(caller: Caller, fields: { fullName: string; phoneNo: string }, signal: AbortSignal): Promise<void>;
  addAddress(caller: Caller, fields: AddressFields, signal: AbortSignal): Promise<AddressDocument>;
  listAddresses(caller: Caller, signal: AbortSignal): Promise<AddressDocument[]>;
  updateAddress(caller: Caller, addressId: number, fields: AddressFields, signal: AbortSignal): Promise<void>;
  deleteAddress(caller: Caller, addressId: number, signal: AbortSignal): Promise<void>;
  listUsers(signal: AbortSignal): Promise<ProfileDocument[]>;
  deleteUser(caller: Caller, userId: number, signal: AbortSignal): Promise<void>;
  /** Idempotent: a repeat (the synchronous call, then USER_REGISTERED) changes nothing. */
  createProfile(profile: NewProfile, signal?: AbortSignal): Promise<boolean>;
}

/** The token names an account that no longer holds its email. */
const replacedAccountMessage = "this token belongs to an account that no longer exists";

export interface ProfilesDeps {
  readonly collections: ProfileCollections;
  readonly accounts: Client<typeof AccountService>;
}

export function createProfiles({ collections, accounts }: ProfilesDeps): Profiles {
  const { profiles, addresses } = collections;

  async function profileOf(caller: Caller, signal: AbortSignal): Promise<ProfileDocument> {
    const profile = await profiles.findOne({ email: caller.email }, { signal });
    if (profile === undefined) throw notFound("user not found");
    if (profile._id !== caller.userId) throw unauthenticated(replacedAccountMessage);
    return profile;
  }

  async function ownedAddress(
    caller: Caller,
    addressId: number,
    signal: AbortSignal,
  ): Promise<AddressDocument> {
    await profileOf(caller, signal);
    const address = await addresses.get(addressId, signal);
    if (address === undefined) throw notFound("address not found");
    if (address.ownerId !== caller.userId) throw forbidden("this address belongs to another user");
    return address;
  }

  return {
    getMe: profileOf,

    async updateMe(caller, fields, signal) {
      const profile = await profileOf(caller, signal);
      const outcome = await changeDocument(
        profiles,
        profile._id,
        (p) => ({ ...p, fullName: fields.fullName, phoneNo: fields.phoneNo }),
        signal,
      );
      if (outcome === undefined) throw notFound("user not found");
    },

    async addAddress(caller, fields, signal) {
      await profileOf(caller, signal); // only existing users own addresses
      return insertWithNextId(
        addresses,
        collections.addressIds,
        async (id) => {
          const address = { _id: id, _v: 1, owner: caller.email, ownerId: caller.userId, ...pick(fields) };
          await addresses.insert(address, signal);
          return address;
        },
        signal,
      );
    },

    async listAddresses(caller, signal) {
      await profileOf(caller, signal);
      return addresses.find({ ownerId: caller.userId }, { sort: [{ field: "_id", direction: 1 }], signal });
    },

    async updateAddress(caller, addressId, fields, signal) {
      await ownedAddress(caller, addressId, signal);
      const outcome = await changeDocument(
        addresses,
        addressId,
        (a) => {
          if (a.ownerId !== caller.userId) throw forbidden("this address belongs to another user");
          return { ...a, ...pick(fields) };
        },
        signal,
      );
      if (outcome === undefined) throw notFound("address not found");
    },

    async deleteAddress(caller, addressId, signal) {
      await ownedAddress(caller, addressId, signal);
      await addresses.delete(addressId, signal);
    },

    listUsers(signal) {
      return profiles.find({}, { sort: [{ field: "_id", direction: 1 }], signal });
    },

    async deleteUser(caller, userId, signal) {
      const profile = await profiles.get(userId, signal);
      if (profile === undefined) throw notFound("user not found");
      if (profile.email === caller.email) throw conflict("an admin cannot delete their own account");
      // Credentials first: once they are gone the user cannot log in, whatever happens next.
      try {
        await accounts.deleteAccount({ userId }, { signal });
      } catch (error) {
        throw unavailable("could not delete the account's credentials", error);
      }
      for (const address of await addresses.find({ ownerId: profile._id }, { signal })) {
        await addresses.delete(address._id, signal);
      }
      await profiles.delete(userId, signal);
    },

    async createProfile(profile, signal) {
      const existing = await profiles.get(profile.userId, signal);
      if (existing !== undefined) {
        if (existing.role === profile.role) return false;
        await changeDocument(
          profiles,
          profile.userId,
          (p) => (p.role === profile.role ? unchanged : { ...p, role: profile.role }),
          signal,
        );
        return false;
      }
      try {
        await profiles.insert(
          {
            _id: profile.userId,
            _v: 1,
            email: profile.email,
            fullName: profile.fullName,
            phoneNo: profile.phoneNo,
            role: profile.role,
            createdAt: profile.createdAt,
          },
          signal,
        );
        return true;
      } catch (error) {
        if (error instanceof DuplicateKeyError) return false; // created concurrently
        throw error;
      }
    },
  };
}

/** Copies exactly the address fields (request messages carry protobuf bookkeeping too). */
function pick(fields: AddressFields): AddressFields {
  return { street: fields.street, city: fields.city, state: fields.state, pincode: fields.pincode };
}
