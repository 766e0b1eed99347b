/**
 * Who may assert what to a service (docs/decisions.md "Service-to-service trust"). Reaching a
 * service's port proves nothing: in a cluster every pod can. So
 *   - the identity headers (`x-user-email`, `x-user-role`) count only on a request that carries
 *     the edge credential, which the edge adds after it verified the caller's token;
 *   - internal methods (ACCESS_INTERNAL) answer only requests that carry the peer credential,
 *     which the services send to each other.
 * Both credentials are per-deployment secrets in a header. A service keeps the peer secret (it
 * sends it) but only the SHA-256 digest of the edge secret, so a compromised service cannot
 * impersonate the edge towards the others. Comparisons are of digests, in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";

export const edgeCredentialHeader = "x-commerce-edge-auth";
export const peerCredentialHeader = "x-commerce-peer-auth";

export interface TrustAnchors {
  /** SHA-256 of the edge secret. */
  readonly edgeSecretSha256: Uint8Array;
  /** SHA-256 of the peer secret. */
  readonly peerSecretSha256: Uint8Array;
}

export interface RequestTrust {
  /** The request carries the edge credential: its identity headers are the edge's word. */
  fromEdge(headers: Headers): boolean;
  /** The request carries the peer credential: it comes from another service. */
  fromPeer(headers: Headers): boolean;
}

export function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

export function createRequestTrust(anchors: TrustAnchors): RequestTrust {
  const proves = (headers: Headers, name: string, digest: Uint8Array): boolean => {
    const value = headers.get(name);
    return value !== null && value !== "" && timingSafeEqual(sha256(value), digest);
  };
  return {
    fromEdge: (headers) => proves(headers, edgeCredentialHeader, anchors.edgeSecretSha256),
    fromPeer: (headers) => proves(headers, peerCredentialHeader, anchors.peerSecretSha256),
  };
}
