/**
 * The Auth service's own settings (docs/configuration.md): the token key and lifetime, and the
 * operator's admin account. Read by the Auth process, and by the embedded platform (which first
 * fills in a generated key and admin where the operator gave none).
 */
import { type EnvReader, declareSettings } from "@commerce/runtime/config";

/** Minimum HS512 key length: the hash output size (RFC 7518 §3.2). */
export const minJwtSecretBytes = 64;

export const authSettings = declareSettings({
  JWT_SECRET: {
    whenUnset: "generated in embedded mode; required",
    meaning: `HS512 key of the tokens, at least ${minJwtSecretBytes} bytes; embedded mode keeps the one it generates in \`DATA_DIR\``,
    readBy: ["embedded", "auth"],
  },
  JWT_TTL: {
    default: "1h",
    meaning: "Token lifetime: seconds or `15m`, `1h`, `7d` (1 minute to 30 days)",
    readBy: ["embedded", "auth"],
  },
  ADMIN_EMAIL: {
    whenUnset: "generated in embedded mode without `MONGODB_URL`; none",
    meaning: "With `ADMIN_PASSWORD`: an ADMIN account with these credentials exists after start",
    readBy: ["embedded", "auth"],
  },
  ADMIN_PASSWORD: {
    whenUnset: "generated with `ADMIN_EMAIL`; none",
    meaning: "The ADMIN account's password (8 to 128 characters)",
    readBy: ["embedded", "auth"],
  },
});

export interface AuthSettings {
  /** HS512 key, shared with the edge. */
  readonly jwtKey: Uint8Array;
  readonly jwtTtlSeconds: number;
  readonly admin: { readonly email: string; readonly password: string } | undefined;
}

export function readAuthSettings(env: EnvReader): AuthSettings {
  const jwtKey = readJwtKey(env);
  const jwtTtlSeconds = env.duration(
    authSettings.JWT_TTL,
    60,
    30 * 86400,
    'from 1m to 30d such as "3600", "15m", "1h"',
  );

  const email = env.string(authSettings.ADMIN_EMAIL);
  const password = env.string(authSettings.ADMIN_PASSWORD);
  if ((email === undefined) !== (password === undefined)) {
    env.problem("ADMIN_EMAIL and ADMIN_PASSWORD must be set together");
  }
  if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    env.problem(`ADMIN_EMAIL must be an email address, got "${email}"`);
  }
  if (password !== undefined && (password.length < 8 || password.length > 128)) {
    env.problem("ADMIN_PASSWORD must be 8 to 128 characters (the password policy)");
  }
  return {
    jwtKey,
    jwtTtlSeconds,
    admin: email !== undefined && password !== undefined ? { email, password } : undefined,
  };
}

/** `JWT_SECRET` as HS512 key bytes: the Auth service signs with it, the edge verifies with it. */
export function readJwtKey(env: EnvReader): Uint8Array {
  const jwtKey = new TextEncoder().encode(env.required(authSettings.JWT_SECRET, "to sign and verify tokens"));
  if (jwtKey.length > 0 && jwtKey.length < minJwtSecretBytes) {
    env.problem(`JWT_SECRET must be at least ${minJwtSecretBytes} bytes for HS512, got ${jwtKey.length}`);
  }
  return jwtKey;
}
