/**
 * The secret files the Envoy configuration names (it holds no secret itself, so it can be a
 * ConfigMap): the JWKS with the token signing key, and the edge's credential for each routed
 * service, one file each (ADR 0105). Envoy is given those credentials, never the edge secret
 * they are derived from.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { edgeCredential } from "@commerce/runtime/identity";

export interface EnvoySecrets {
  /** The HS512 key of access tokens: the platform's JWT_SECRET, as text. */
  readonly jwtSecret: string;
  /** The deployment's EDGE_SECRET, which the credential for each service is derived from. */
  readonly edgeSecret: string;
}

export interface EnvoySecretFiles {
  readonly jwksPath: string;
  readonly edgeCredentialsDir: string;
}

/** The JWKS of one symmetric HS512 key: the secret's UTF-8 bytes, base64url. */
export function jwksOf(jwtSecret: string): string {
  const key = { kty: "oct", alg: "HS512", k: Buffer.from(jwtSecret, "utf8").toString("base64url") };
  return JSON.stringify({ keys: [key] });
}

/**
 * Writes `jwks.json` and `edge-credentials/<service>` for each of `services` into `dir`
 * (created if missing), readable by the owner only. A credential is written without a trailing
 * newline: Envoy sends the file's bytes verbatim as the header value.
 */
export async function writeEnvoySecrets(
  dir: string,
  secrets: EnvoySecrets,
  services: readonly string[],
): Promise<EnvoySecretFiles> {
  if (secrets.edgeSecret === "") throw new Error("the edge secret must not be empty");
  const files = { jwksPath: join(dir, "jwks.json"), edgeCredentialsDir: join(dir, "edge-credentials") };
  await mkdir(files.edgeCredentialsDir, { recursive: true, mode: 0o700 });
  await writeFile(files.jwksPath, jwksOf(secrets.jwtSecret), { mode: 0o600 });
  for (const service of services) {
    await writeFile(join(files.edgeCredentialsDir, service), edgeCredential(secrets.edgeSecret, service), {
      mode: 0o600,
    });
  }
  return files;
}
