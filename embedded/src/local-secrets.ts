/**
 * Secrets that embedded mode makes up when the operator gave none (ADR 0032): generated once,
 * kept beside the data with owner-only permissions, and reused on every later start so that
 * tokens and the admin login survive restarts. Clusters always set them explicitly.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function loadOrCreateSecret(dataDir: string, name: string, generate: () => string): string {
  const dir = join(dataDir, "secrets");
  const file = join(dir, name);
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const value = generate();
  try {
    writeFileSync(file, value, { mode: 0o600, flag: "wx" });
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return readFileSync(file, "utf8"); // another process won
    throw error;
  }
}

/** Where embedded mode keeps generated secrets: one file each under `<dataDir>/secrets`. */
export interface SecretSource {
  /** The secret called `name`, generated with `generate` the first time. */
  value(name: string, generate: () => string): string;
}

export function fileSecrets(dataDir: string): SecretSource {
  return { value: (name, generate) => loadOrCreateSecret(dataDir, name, generate) };
}

/** 64 random bytes, base64url: an HS512 key of the full hash size. */
export function generateJwtSecret(): string {
  return randomBytes(64).toString("base64url");
}

/** 32 random bytes, base64url (43 characters): a credential sent in a header. */
export function generateHeaderSecret(): string {
  return randomBytes(32).toString("base64url");
}

/** A password for the generated admin account: 24 characters from a URL-safe alphabet. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
