/**
 * Who may assert what to a service (ADR 0105, which replaces ADR 0011). Reaching a service's
 * port proves nothing: in a cluster every pod can. So
 *   - the identity headers (`x-user-email`, `x-user-role`, `x-user-id`) count only on a request
 *     that carries the edge's credential for the service called, which the edge adds after it
 *     verified the caller's token;
 *   - internal methods (ACCESS_INTERNAL) answer only requests that carry the credential of one
 *     of the service's callers, and the credential names that caller.
 * Every hop has a credential of its own (hop-credentials.ts): what one service receives is
 * accepted by no other. A service holds only the SHA-256 digests of what it accepts, so nothing
 * it holds lets it pose as the edge or as a peer. Comparisons are of digests, in constant time.
 */
import type { DescService } from "@bufbuild/protobuf";
import { hash, timingSafeEqual } from "node:crypto";

export const edgeCredentialHeader = "x-commerce-edge-auth";
export const peerCredentialHeader = "x-commerce-peer-auth";

/** What a destination (one service process) accepts, as digests. */
export interface TrustAnchors {
  /** SHA-256 of the edge's credential for this service; none when the edge does not call it. */
  readonly edgeCredentialSha256: Uint8Array | undefined;
  /** Each caller's name and the SHA-256 of the credential it presents here. */
  readonly callers: ReadonlyMap<string, Uint8Array>;
}

export interface RequestTrust {
  /** The request to `service` (a type name) carries the edge's credential for that service. */
  fromEdge(service: string, headers: Headers): boolean;
  /** The caller whose credential for `service` (a type name) the request carries; else undefined. */
  peerOf(service: string, headers: Headers): string | undefined;
}

export function sha256(text: string): Uint8Array {
  return hash("sha256", text, "buffer");
}

/**
 * The trust of each service a host serves, by the service's type name: in a service process
 * every service has the process's anchors, in embedded mode each has its module's. A service
 * with no anchors believes no identity and answers no internal method.
 */
export function createRequestTrust(anchorsByService: ReadonlyMap<string, TrustAnchors>): RequestTrust {
  const checks = new Map<TrustAnchors, { edge: CredentialCheck; peer: CredentialCheck }>();
  const byService = new Map<string, { edge: CredentialCheck; peer: CredentialCheck }>();
  for (const [service, anchors] of anchorsByService) {
    let check = checks.get(anchors);
    if (check === undefined) {
      const edge = anchors.edgeCredentialSha256;
      check = {
        edge: createCredentialCheck(edge === undefined ? new Map() : new Map([["edge", edge]])),
        peer: createCredentialCheck(anchors.callers),
      };
      checks.set(anchors, check);
    }
    byService.set(service, check);
  }
  return {
    fromEdge: (service, headers) =>
      byService.get(service)?.edge(headers.get(edgeCredentialHeader)) !== undefined,
    peerOf: (service, headers) => byService.get(service)?.peer(headers.get(peerCredentialHeader)),
  };
}

/** The trust of a process that is one destination: every service it serves has `anchors`. */
export function createDestinationTrust(
  services: readonly DescService[],
  anchors: TrustAnchors,
): RequestTrust {
  return createRequestTrust(new Map(services.map((service) => [service.typeName, anchors])));
}

/**
 * The trust of a process that holds no credential (the `web` process): it believes no identity
 * and answers no internal method, and serves none either.
 */
export const trustNobody: RequestTrust = createRequestTrust(new Map());

/** The name of the holder whose credential `value` is, or undefined. */
type CredentialCheck = (value: string | null) => string | undefined;

/**
 * Whose credential `value` is, among `known` (name → digest). A value once proven is
 * remembered, so the steady state (every request of a hop carries the same credential) costs a
 * map lookup instead of a hash, which was the largest single cost of an in-process call. Only
 * proven values are kept, so a guess always takes the constant-time path, and a hit tells
 * nothing the answer does not.
 */
function createCredentialCheck(known: ReadonlyMap<string, Uint8Array>): CredentialCheck {
  const proven = new Map<string, string>();
  // Room for each holder's credential and one rotated replacement; the bound guards against surprises.
  const bound = 2 * known.size + 2;
  return (value) => {
    if (value === null || value === "" || known.size === 0) return undefined;
    const remembered = proven.get(value);
    if (remembered !== undefined) return remembered;
    const digest = sha256(value);
    let holder: string | undefined;
    // Every digest is compared, so the time taken does not tell which one matched.
    for (const [name, expected] of known) {
      if (timingSafeEqual(digest, expected) && holder === undefined) holder = name;
    }
    if (holder === undefined) return undefined;
    if (proven.size >= bound) proven.clear();
    proven.set(value, holder);
    return holder;
  };
}
