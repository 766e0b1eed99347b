/**
 * The credential of each hop, derived from the deployment's two secrets (ADR 0105): the edge's
 * credential for one service, and one peer's credential for one callee. A credential is the hex
 * SHA-256 of a label naming the hop, a colon, and the secret:
 *   edge → order      sha256("edge:order:" + EDGE_SECRET)
 *   product → order   sha256("peer:product:order:" + PEER_SECRET)
 * The label comes first, so knowing one credential (a digest of the secret behind one label)
 * gives no way to compute another's; names hold no colon, so no two hops share a label. The
 * chart computes the same with Helm's `sha256sum` (helm/templates/_helpers.tpl), which has no
 * HMAC: that is why this is a plain digest. A destination holds only the digest of what it
 * accepts (`credentialSha256`), never a secret, and never what another service accepts.
 */
import { hash } from "node:crypto";

function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

/** What the edge presents to `service`, and only there. */
export function edgeCredential(edgeSecret: string, service: string): string {
  return sha256Hex(`edge:${service}:${edgeSecret}`);
}

/** What `caller` presents to `callee`, and only there. */
export function peerCredential(peerSecret: string, caller: string, callee: string): string {
  return sha256Hex(`peer:${caller}:${callee}:${peerSecret}`);
}

/** What a destination holds to recognise a credential: its SHA-256, in hex. */
export function credentialSha256(credential: string): string {
  return sha256Hex(credential);
}
