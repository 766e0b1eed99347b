/**
 * The owners of the addresses added before owners were kept by id (ADR 0101). An address names
 * its owner only by email and keeps no time, and a deletion removes the account's addresses, so
 * one is the account's that holds the email now only when the email never had another
 * (`FindEmailHolders` without a time); otherwise it is nobody's (0): a leftover of a deletion
 * raced by an address added meanwhile cannot be told from the later account's own.
 */
import type { Client } from "@connectrpc/connect";
import { emailHoldersOf } from "@commerce/runtime/identity";
import { changeDocument, unchanged, type Collection, type FieldBackfill } from "@commerce/runtime/store";
import type { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import type { AddressDocument } from "./profile-store.js";

export function addressOwners(
  addresses: Collection<AddressDocument>,
  accounts: Client<typeof AccountService>,
): FieldBackfill<AddressDocument, number> {
  return {
    description: "the owner's user id of every address added before owners were kept by id",
    collection: addresses,
    field: "ownerId",
    decide: (batch, signal) =>
      emailHoldersOf(
        accounts,
        batch.map((address) => ({ email: address.owner, atMs: 0 })),
        signal,
      ),
    async write(address, ownerId, signal) {
      await changeDocument(
        addresses,
        address._id,
        (current) => (current.ownerId !== undefined ? unchanged : { ...current, ownerId }),
        signal,
      );
    },
  };
}
