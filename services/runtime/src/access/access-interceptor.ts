import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Access, methodContract } from "../contract/method-contract.js";
import { callerFromHeaders, callerKey, callingPeerKey } from "../identity/caller.js";
import { clientAddressFromHeaders, clientAddressKey } from "../identity/client-address.js";
import type { RequestTrust } from "../identity/request-trust.js";
import type { RevokedAccounts } from "../identity/revoked-accounts.js";
import type { Logger } from "../logging/logger.js";

/**
 * Enforces each method's access rule inside the service, the second of the two checks
 * (ADR 0105): the edge has verified the token; here the identity headers count only when the
 * request carries the edge's credential for this very service and name an account that was
 * not deleted (a deleted account's tokens are anonymous: 401), the role is held against the
 * method's option, and internal methods answer only requests that carry the credential of one
 * of this service's callers, whose name handlers find under `callingPeerKey`. A peer's
 * credential never carries an identity. Ownership is the domain's business. `openServices` are
 * protocol services outside our contract (gRPC health, server reflection) that anyone reaching
 * the port may call: they carry no access option, so each is let through by name, and any
 * other service without one fails (methodContract throws). The client's address counts only
 * from the edge too.
 */
export function createAccessInterceptor(
  trust: RequestTrust,
  revoked: RevokedAccounts,
  logger: Logger,
  openServices: readonly string[] = [],
): Interceptor {
  return (next) => async (req) => {
    const service = req.service.typeName;
    const fromEdge = trust.fromEdge(service, req.header);
    let caller = fromEdge ? callerFromHeaders(req.header) : undefined;
    if (caller !== undefined && revoked.isRevoked(caller.userId)) caller = undefined;
    req.contextValues.set(callerKey, caller);
    req.contextValues.set(clientAddressKey, fromEdge ? clientAddressFromHeaders(req.header) : undefined);
    if (openServices.includes(service)) return next(req);
    const { access } = methodContract(req.method);
    if (access === Access.INTERNAL) {
      const peer = trust.peerOf(service, req.header);
      if (peer === undefined) {
        // Nothing of the platform calls without its credential: someone who reached the port is trying.
        logger.warn(
          { rpc: `${service}/${req.method.name}`, signal: req.signal },
          "internal method refused: no credential of a caller of this service",
        );
        throw new ConnectError("a peer service credential is required", Code.Unauthenticated);
      }
      if (logger.isLevelEnabled("debug")) {
        logger.debug({ rpc: `${service}/${req.method.name}`, peer, signal: req.signal }, "internal call");
      }
      req.contextValues.set(callingPeerKey, peer);
    } else if (access === Access.AUTHENTICATED || access === Access.ADMIN) {
      if (caller === undefined) throw new ConnectError("authentication required", Code.Unauthenticated);
      if (access === Access.ADMIN && caller.role !== "ADMIN") {
        throw new ConnectError("admin role required", Code.PermissionDenied);
      }
    }
    return next(req);
  };
}
