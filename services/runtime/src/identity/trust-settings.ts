/**
 * The credentials a service process reads (ADR 0011):
 * `PEER_SECRET`, which it sends to its peers and expects from them, and `EDGE_SECRET_SHA256`,
 * the hex digest of the edge's secret, so that it can recognise the edge without holding what
 * would let it pose as the edge.
 */
import type { EnvReader } from "../config/env-reader.js";
import { declareSettings, serviceProcesses } from "../config/setting.js";
import { sha256, type TrustAnchors } from "./request-trust.js";

/** Shortest accepted secret: 32 characters of a base64url alphabet carry 192 bits. */
export const minSecretLength = 32;

export const trustSettings = declareSettings({
  PEER_SECRET: {
    whenUnset: "generated in embedded mode; required",
    meaning: `The services' credential towards each other (at least ${minSecretLength} characters)`,
    readBy: ["embedded", ...serviceProcesses],
  },
  EDGE_SECRET_SHA256: {
    whenUnset: "required",
    meaning: "Hex SHA-256 of `EDGE_SECRET`: a service recognises the edge without being able to pose as it",
    readBy: serviceProcesses,
  },
  EDGE_SECRET: {
    whenUnset: "generated",
    meaning: `The edge's credential towards the services (at least ${minSecretLength} characters)`,
    readBy: ["embedded"],
  },
});

export interface ServiceTrustSettings extends TrustAnchors {
  readonly peerSecret: string;
}

export function readServiceTrustSettings(env: EnvReader): ServiceTrustSettings {
  const why = "(ADR 0011)";
  const { PEER_SECRET, EDGE_SECRET_SHA256 } = trustSettings;
  const peerSecret = env.headerSecret(PEER_SECRET, minSecretLength) ?? env.required(PEER_SECRET, why);
  const edgeDigest = env.string(EDGE_SECRET_SHA256) ?? env.required(EDGE_SECRET_SHA256, why);
  if (edgeDigest !== "" && !/^[0-9a-f]{64}$/i.test(edgeDigest)) {
    env.problem("EDGE_SECRET_SHA256 must be the SHA-256 of the edge secret as 64 hex digits");
  }
  return {
    peerSecret,
    peerSecretSha256: sha256(peerSecret),
    edgeSecretSha256: Buffer.from(edgeDigest, "hex"),
  };
}
