/**
 * Tokens a client should never get through the edge with: expired, tampered, unsigned,
 * signed with another key or another algorithm.
 */
import { SignJWT } from "jose";
import { acceptanceEnvironment } from "./environment.js";

export interface ForgedClaims {
  readonly sub: string;
  readonly role: string;
  /** The account's user id; a token without it is refused. */
  readonly uid?: number;
  readonly expiresIn?: number;
}

const encoder = new TextEncoder();
const base64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString("base64url");

export function signToken(
  claims: ForgedClaims,
  options: { alg?: "HS512" | "HS256"; key?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    role: claims.role,
    name: "Forged",
    ...(claims.uid === undefined ? {} : { uid: claims.uid }),
  })
    .setProtectedHeader({ alg: options.alg ?? "HS512", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt(now - 7200)
    .setExpirationTime(now + (claims.expiresIn ?? 3600))
    .sign(encoder.encode(options.key ?? acceptanceEnvironment().jwtSecret));
}

/** A token with `alg: none` and no signature. */
export function unsignedToken(claims: ForgedClaims): string {
  const now = Math.floor(Date.now() / 1000);
  return `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: claims.sub, role: claims.role, iat: now, exp: now + 3600 })}.`;
}

/** A genuine token whose payload was changed afterwards (signature left as it was). */
export function tamperedToken(token: string, changes: Record<string, unknown>): string {
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as Record<string, unknown>;
  return `${header ?? ""}.${base64url({ ...claims, ...changes })}.${signature ?? ""}`;
}

/** A genuine, correctly signed token without an `exp` claim. */
export function tokenWithoutExpiry(claims: ForgedClaims): Promise<string> {
  return new SignJWT({ role: claims.role, ...(claims.uid === undefined ? {} : { uid: claims.uid }) })
    .setProtectedHeader({ alg: "HS512" })
    .setSubject(claims.sub)
    .setIssuedAt()
    .sign(encoder.encode(acceptanceEnvironment().jwtSecret));
}

export function decodeClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as Record<
    string,
    unknown
  >;
}

export function decodeHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[0] ?? "", "base64url").toString()) as Record<
    string,
    unknown
  >;
}

/** The user id (`uid`) of a token the platform issued. */
export function userIdOf(token: string): number {
  const uid = decodeClaims(token)["uid"];
  if (typeof uid !== "number") throw new Error("the token carries no uid");
  return uid;
}
