import type { ServiceImpl } from "@connectrpc/connect";
import { clientAddressOf } from "@commerce/runtime/identity";
import type { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import type { Accounts } from "./accounts.js";

/** REST: POST /api/auth/register, POST /api/auth/login. */
export function createAuthHandler(accounts: Accounts): ServiceImpl<typeof AuthService> {
  return {
    async register(req, ctx) {
      await accounts.register(req, ctx.signal);
      return { message: "user registered successfully" };
    },
    async login(req, ctx) {
      const token = await accounts.login(req.email, req.password, clientAddressOf(ctx), ctx.signal);
      return { token, type: "Bearer" };
    },
  };
}
