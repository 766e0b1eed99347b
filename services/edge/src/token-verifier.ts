/**
 * Verifies bearer tokens the way the Envoy edge does (ADR 0010): HS512 only (the algorithm
 * is pinned, so `alg: none` and HS256 are refused), a valid signature, `exp` required and in the
 * future, and the claims the services need (`sub`, `role`, and `uid`, the account's user id: a
 * token without it is refused, ADR 0034).
 *
 * Verified tokens are remembered until they expire (bounded map): a client sends the same token
 * many times, and the HMAC is the edge's largest per-request cost. A cached entry is only ever
 * looked up by the exact token string that was verified.
 */
import { jwtVerify } from "jose";
import type { Caller } from "@commerce/runtime/identity";

export type TokenVerifier = (authorization: string | undefined) => Promise<Caller | undefined>;

const maxCached = 10_000;

export function createTokenVerifier(key: Uint8Array): TokenVerifier {
  const cache = new Map<string, { caller: Caller; exp: number }>();
  return async (authorization) => {
    const match = authorization === undefined ? null : /^Bearer +([A-Za-z0-9_\-.]+)\s*$/i.exec(authorization);
    const token = match?.[1];
    if (token === undefined) return undefined;
    const now = Math.floor(Date.now() / 1000);
    const cached = cache.get(token);
    if (cached !== undefined) {
      if (cached.exp > now) return cached.caller;
      cache.delete(token);
      return undefined;
    }
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ["HS512"],
        requiredClaims: ["exp", "sub", "role", "uid"],
      });
      const { sub, role, exp, uid } = payload;
      if (
        typeof sub !== "string" ||
        sub === "" ||
        (role !== "CUSTOMER" && role !== "ADMIN") ||
        exp === undefined ||
        !isUserId(uid)
      ) {
        return undefined;
      }
      const caller: Caller = { userId: uid, email: sub, role };
      if (cache.size >= maxCached) cache.delete(cache.keys().next().value ?? "");
      cache.set(token, { caller, exp });
      return caller;
    } catch {
      return undefined;
    }
  };
}

/** A user id as tokens carry it: a positive integer that fits the contract's uint32. */
function isUserId(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 && value <= 0xffffffff;
}
