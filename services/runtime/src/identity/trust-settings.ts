/**
 * The credentials a service process reads (ADR 0011):
 * `PEER_SECRET`, which it sends to its peers and expects from them, and `EDGE_SECRET_SHA256`,
 * the hex digest of the edge's secret, so that it can recognise the edge without holding what
 * would let it pose as the edge.
 */
import type { EnvReader } from "../config/env-reader.js";
import { sha256, type TrustAnchors } from "./request-trust.js";

/** Shortest accepted secret: 32 characters of a base64url alphabet carry 192 bits. */
export const minSecretLength = 32;

export interface ServiceTrustSettings extends TrustAnchors {
  readonly peerSecret: string;
}

export function readServiceTrustSettings(env: EnvReader): ServiceTrustSettings {
  const why = "(ADR 0011)";
  const peerSecret = env.headerSecret("PEER_SECRET", minSecretLength) ?? env.required("PEER_SECRET", why);
  const edgeDigest = env.string("EDGE_SECRET_SHA256") ?? env.required("EDGE_SECRET_SHA256", why);
  if (edgeDigest !== "" && !/^[0-9a-f]{64}$/i.test(edgeDigest)) {
    env.problem("EDGE_SECRET_SHA256 must be the SHA-256 of the edge secret as 64 hex digits");
  }
  return {
    peerSecret,
    peerSecretSha256: sha256(peerSecret),
    edgeSecretSha256: Buffer.from(edgeDigest, "hex"),
  };
}
