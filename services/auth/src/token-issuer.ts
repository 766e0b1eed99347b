/**
 * Issues the contract's JWT: HS512, claims `sub` (email), `role`, `name`, `iat`, `exp`, and ours,
 * `uid`: the account's user id, never reused, so a token names the one account it was issued
 * for (ADR 0034).
 */
import { SignJWT } from "jose";
import type { Role } from "@commerce/runtime/identity";

export interface TokenClaims {
  readonly userId: number;
  readonly email: string;
  readonly role: Role;
  readonly name: string;
}

export type TokenIssuer = (claims: TokenClaims, now: Date) => Promise<string>;

export function createTokenIssuer(key: Uint8Array, ttlSeconds: number): TokenIssuer {
  return (claims, now) => {
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({ role: claims.role, name: claims.name, uid: claims.userId })
      .setProtectedHeader({ alg: "HS512", typ: "JWT" })
      .setSubject(claims.email)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .sign(key);
  };
}
