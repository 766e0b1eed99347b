import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Access, methodContract } from "../contract/method-contract.js";
import { callerFromHeaders, callerKey } from "../identity/caller.js";
import { clientAddressFromHeaders, clientAddressKey } from "../identity/client-address.js";
import type { RequestTrust } from "../identity/request-trust.js";
import type { RevokedAccounts } from "../identity/revoked-accounts.js";

/**
 * Enforces each method's access rule inside the service, the second of the two checks
 * (ADR 0011): the edge has verified the token; here the
 * identity headers count only when the request proves it came from the edge and name an account
 * that was not deleted (a deleted account's tokens are anonymous: 401), the role is held
 * against the method's option, and internal methods answer only requests that prove they come
 * from a peer service. Ownership is the domain's business. `openServices` are protocol services
 * outside our contract (gRPC health, server reflection) that anyone reaching the port may call:
 * they carry no access option, so each is let through by name, and any other service without
 * one fails (methodContract throws). The client's address counts only from the edge too.
 */
export function createAccessInterceptor(
  trust: RequestTrust,
  revoked: RevokedAccounts,
  openServices: readonly string[] = [],
): Interceptor {
  return (next) => async (req) => {
    const fromEdge = trust.fromEdge(req.header);
    let caller = fromEdge ? callerFromHeaders(req.header) : undefined;
    if (caller !== undefined && revoked.isRevoked(caller.userId)) caller = undefined;
    req.contextValues.set(callerKey, caller);
    req.contextValues.set(clientAddressKey, fromEdge ? clientAddressFromHeaders(req.header) : undefined);
    if (openServices.includes(req.service.typeName)) return next(req);
    const { access } = methodContract(req.method);
    if (access === Access.INTERNAL) {
      if (!trust.fromPeer(req.header))
        throw new ConnectError("a peer service credential is required", Code.Unauthenticated);
    } else if (access === Access.AUTHENTICATED || access === Access.ADMIN) {
      if (caller === undefined) throw new ConnectError("authentication required", Code.Unauthenticated);
      if (access === Access.ADMIN && caller.role !== "ADMIN") {
        throw new ConnectError("admin role required", Code.PermissionDenied);
      }
    }
    return next(req);
  };
}
