import type { ServiceImpl } from "@connectrpc/connect";
import type { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import type { Accounts } from "./accounts.js";
import type { EmailHolders } from "./email-holders.js";

/**
 * Internal: account deletion, called by the User service when an admin deletes a user; and
 * which account held an email when, which the services' migrations ask.
 */
export function createAccountHandler(
  accounts: Accounts,
  holders: EmailHolders,
): ServiceImpl<typeof AccountService> {
  return {
    async deleteAccount(req, ctx) {
      return { deleted: await accounts.deleteAccount(req.userId, ctx.signal) };
    },
    async findEmailHolders(req, ctx) {
      const queries = req.queries.map((query) => ({ email: query.email, atMs: Number(query.atMs) }));
      return { userIds: await holders.find(queries, ctx.signal) };
    },
  };
}
