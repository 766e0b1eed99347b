/**
 * Who may assert what to a service (ADR 0011). Reaching a
 * service's port proves nothing: in a cluster every pod can. So
 *   - the identity headers (`x-user-email`, `x-user-role`) count only on a request that carries
 *     the edge credential, which the edge adds after it verified the caller's token;
 *   - internal methods (ACCESS_INTERNAL) answer only requests that carry the peer credential,
 *     which the services send to each other.
 * Both credentials are per-deployment secrets in a header. A service keeps the peer secret (it
 * sends it) but only the SHA-256 digest of the edge secret, so a compromised service cannot
 * impersonate the edge towards the others. Comparisons are of digests, in constant time.
 */
import { hash, timingSafeEqual } from "node:crypto";

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
  return hash("sha256", text, "buffer");
}

/**
 * The trust of a process that holds no credential (the `web` process): it believes no identity
 * and answers no internal method, and serves none either.
 */
export const trustNobody: RequestTrust = { fromEdge: () => false, fromPeer: () => false };

export function createRequestTrust(anchors: TrustAnchors): RequestTrust {
  const edge = createCredentialCheck(anchors.edgeSecretSha256);
  const peer = createCredentialCheck(anchors.peerSecretSha256);
  return {
    fromEdge: (headers) => edge(headers.get(edgeCredentialHeader)),
    fromPeer: (headers) => peer(headers.get(peerCredentialHeader)),
  };
}

/**
 * Whether `value` is the secret whose digest is `digest`. A value once proven is remembered, so
 * the steady state (every request carries the same credential) costs a set lookup instead of a
 * hash, which was the largest single cost of an in-process call. Only proven values are kept, so
 * a guess always takes the constant-time path, and a hit tells nothing the answer does not.
 */
function createCredentialCheck(digest: Uint8Array): (value: string | null) => boolean {
  const proven = new Set<string>();
  return (value) => {
    if (value === null || value === "") return false;
    if (proven.has(value)) return true;
    if (!timingSafeEqual(sha256(value), digest)) return false;
    // A rotated secret replaces the old one; the bound only guards against surprises.
    if (proven.size >= 4) proven.clear();
    proven.add(value);
    return true;
  };
}
