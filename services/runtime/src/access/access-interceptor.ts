import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Access, methodContract } from "../contract/method-contract.js";
import { callerFromHeaders, callerKey } from "../identity/caller.js";

/**
 * Enforces each method's access rule inside the service, the second of the two checks
 * (DESIGN.md §4): the edge has verified the token; here the role from `x-user-role` is held
 * against the method's option. Ownership is the domain's business. `openServices` are protocol
 * services outside our contract (gRPC health) that anyone reaching the port may call.
 */
export function createAccessInterceptor(openServices: readonly string[] = []): Interceptor {
  return (next) => async (req) => {
    const caller = callerFromHeaders(req.header);
    req.contextValues.set(callerKey, caller);
    if (openServices.includes(req.service.typeName)) return next(req);
    const { access } = methodContract(req.method);
    if (access === Access.AUTHENTICATED || access === Access.ADMIN) {
      if (caller === undefined) throw new ConnectError("authentication required", Code.Unauthenticated);
      if (access === Access.ADMIN && caller.role !== "ADMIN") {
        throw new ConnectError("admin role required", Code.PermissionDenied);
      }
    }
    return next(req);
  };
}
