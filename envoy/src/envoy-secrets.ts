/**
 * The two secret files the Envoy configuration names (it holds no secret itself, so it can be
 * a ConfigMap): the JWKS with the token signing key, and the edge credential.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface EnvoySecrets {
  /** The HS512 key of access tokens: the platform's JWT_SECRET, as text. */
  readonly jwtSecret: string;
  /** What Envoy sends upstream in `x-commerce-edge-auth`. */
  readonly edgeSecret: string;
}

export interface EnvoySecretFiles {
  readonly jwksPath: string;
  readonly edgeCredentialPath: string;
}

/** The JWKS of one symmetric HS512 key: the secret's UTF-8 bytes, base64url. */
export function jwksOf(jwtSecret: string): string {
  const key = { kty: "oct", alg: "HS512", k: Buffer.from(jwtSecret, "utf8").toString("base64url") };
  return JSON.stringify({ keys: [key] });
}

/**
 * Writes `jwks.json` and `edge-credential` into `dir` (created if missing), readable by the
 * owner only. The credential is written as is, without a trailing newline: Envoy sends the
 * file's bytes verbatim as the header value.
 */
export async function writeEnvoySecrets(dir: string, secrets: EnvoySecrets): Promise<EnvoySecretFiles> {
  if (/[\r\n]/.test(secrets.edgeSecret) || secrets.edgeSecret === "") {
    throw new Error("the edge secret must be one non-empty line (it becomes a header value)");
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const files = { jwksPath: join(dir, "jwks.json"), edgeCredentialPath: join(dir, "edge-credential") };
  await writeFile(files.jwksPath, jwksOf(secrets.jwtSecret), { mode: 0o600 });
  await writeFile(files.edgeCredentialPath, secrets.edgeSecret, { mode: 0o600 });
  return files;
}
