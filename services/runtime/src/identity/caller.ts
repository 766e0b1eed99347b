/**
 * The caller's identity as the edge asserts it (docs/architecture.md §3-§4): `x-user-email` and
 * `x-user-role`, set by the edge after it verified the JWT and removed any client-sent copies.
 * Services trust these two headers and nothing else.
 */
import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { unauthenticated } from "../errors/domain-error.js";

export type Role = "CUSTOMER" | "ADMIN";

export interface Caller {
  readonly email: string;
  readonly role: Role;
}

export const userEmailHeader = "x-user-email";
export const userRoleHeader = "x-user-role";

/** The caller of the current request, set by the identity interceptor; undefined when anonymous. */
export const callerKey = createContextKey<Caller | undefined>(undefined, { description: "caller identity" });

export function callerFromHeaders(headers: Headers): Caller | undefined {
  const email = headers.get(userEmailHeader);
  const role = headers.get(userRoleHeader);
  if (email === null || email === "" || (role !== "CUSTOMER" && role !== "ADMIN")) return undefined;
  return { email, role };
}

/** The authenticated caller; the access interceptor has already refused anonymous calls. */
export function requireCaller(ctx: HandlerContext): Caller {
  const caller = ctx.values.get(callerKey);
  if (caller === undefined) throw unauthenticated("authentication required");
  return caller;
}
