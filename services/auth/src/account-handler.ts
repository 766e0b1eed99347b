import type { ServiceImpl } from "@connectrpc/connect";
import type { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import type { Accounts } from "./accounts.js";

/** Internal: account deletion, called by the User service when an admin deletes a user. */
export function createAccountHandler(accounts: Accounts): ServiceImpl<typeof AccountService> {
  return {
    async deleteAccount(req, ctx) {
      return { deleted: await accounts.deleteAccount(req.userId, ctx.signal) };
    },
  };
}
