/**
 * Password hashing per OWASP's Password Storage Cheat Sheet: argon2id, m = 19 MiB, t = 2, p = 1.
 * The PHC string stores its own parameters, so raising them later still verifies old hashes.
 */
import { hash, verify } from "@node-rs/argon2";

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Constant-time comparison inside argon2's verify. */
  verify(hashed: string, password: string): Promise<boolean>;
  /**
   * Spends the same time as a real verification against a fixed hash, so that a login for an
   * unknown account takes as long as one for a known account with a wrong password.
   */
  verifyDummy(password: string): Promise<void>;
}

/** Argon2id is the library's default algorithm (its enum is ambient, unusable here). */
const options = {
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
};

export function createPasswordHasher(): PasswordHasher {
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => hash(password, options),
    verify: async (hashed, password) => {
      try {
        return await verify(hashed, password);
      } catch {
        return false; // a malformed stored hash never verifies
      }
    },
    async verifyDummy(password) {
      dummy ??= hash("dummy password for timing equalisation", options);
      await verify(await dummy, password).catch(() => false);
    },
  };
}
