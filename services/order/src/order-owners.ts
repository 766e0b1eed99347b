/**
 * The owners of the orders placed before owners were kept by id (ADR 0101): each such order
 * names its owner only by email, so the Auth service says which account certainly held that
 * email when the order was placed (`FindEmailHolders`), and the order gets that account's id,
 * or 0 (nobody: only admins reach it) when none did. An abandoned order's id was never an order:
 * it gets 0 without asking.
 */
import type { Client } from "@connectrpc/connect";
import type { RecordedCollection } from "@commerce/runtime/events";
import { emailHoldersOf } from "@commerce/runtime/identity";
import { unchanged, type FieldBackfill } from "@commerce/runtime/store";
import type { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import type { OrderDocument } from "./order-store.js";

export function orderOwners(
  orders: RecordedCollection<OrderDocument>,
  accounts: Client<typeof AccountService>,
): FieldBackfill<OrderDocument, number> {
  return {
    description: "the owner's user id of every order placed before owners were kept by id",
    collection: orders,
    field: "customerUserId",
    async decide(batch, signal) {
      const placed = batch.filter((order) => order.status !== "ABANDONED");
      const holders = await emailHoldersOf(
        accounts,
        placed.map((order) => ({ email: order.customerId, atMs: order.placedAt })),
        signal,
      );
      const owners = new Map(placed.map((order, i) => [order._id, holders[i] ?? 0]));
      return batch.map((order) => owners.get(order._id) ?? 0);
    },
    async write(order, customerUserId, signal) {
      await orders.change(
        order._id,
        (current) =>
          current.customerUserId !== undefined ? unchanged : { next: { ...current, customerUserId } },
        signal,
      );
    },
  };
}
