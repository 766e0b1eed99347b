/**
 * The caller's identity as the edge asserts it (ADR 0010, ADR 0105): `x-user-email`,
 * `x-user-role` and `x-user-id` (the token's `uid` claim), set by the edge after it verified the
 * JWT and removed any client-sent copies. Services trust these three headers and nothing else
 * (ADR 0034 says why the third).
 */
import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { unauthenticated } from "../errors/domain-error.js";

export type Role = "CUSTOMER" | "ADMIN";

export interface Caller {
  /** The account the token was issued for; ids are never reused. */
  readonly userId: number;
  readonly email: string;
  readonly role: Role;
}

export const userEmailHeader = "x-user-email";
export const userRoleHeader = "x-user-role";
export const userIdHeader = "x-user-id";

/** The caller of the current request, set by the identity interceptor; undefined when anonymous. */
export const callerKey = createContextKey<Caller | undefined>(undefined, { description: "caller identity" });

/**
 * The peer service that made the current internal call (`order`, say), as its credential names
 * it (request-trust.ts); undefined on any other call. Set by the access interceptor.
 */
export const callingPeerKey = createContextKey<string | undefined>(undefined, {
  description: "calling peer",
});

export function callerFromHeaders(headers: Headers): Caller | undefined {
  const email = headers.get(userEmailHeader);
  const role = headers.get(userRoleHeader);
  const userId = parseUserId(headers.get(userIdHeader));
  if (email === null || email === "" || (role !== "CUSTOMER" && role !== "ADMIN") || userId === undefined) {
    return undefined;
  }
  return { userId, email, role };
}

/** A user id as the edge writes it: plain decimal digits of a positive 32-bit integer. */
export function parseUserId(text: string | null): number | undefined {
  if (text === null || !/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  const id = Number(text);
  return id <= 0xffffffff ? id : undefined;
}

/** The authenticated caller; the access interceptor has already refused anonymous calls. */
export function requireCaller(ctx: HandlerContext): Caller {
  const caller = ctx.values.get(callerKey);
  if (caller === undefined) throw unauthenticated("authentication required");
  return caller;
}
