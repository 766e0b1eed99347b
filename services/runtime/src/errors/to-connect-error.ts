import { Code, ConnectError } from "@connectrpc/connect";
import { DomainError, type DomainErrorKind } from "./domain-error.js";

const codes: Record<DomainErrorKind, Code> = {
  invalid: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  not_found: Code.NotFound,
  conflict: Code.AlreadyExists,
  throttled: Code.ResourceExhausted,
  unavailable: Code.Unavailable,
};

/**
 * The one mapping from what handlers throw to what goes on the wire. Domain errors keep their
 * client-facing message; a ConnectError passes through (its `cause` stays server-side); anything
 * else becomes INTERNAL with a fixed message, so no stack trace or driver message leaks.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof DomainError) {
    return new ConnectError(error.message, codes[error.kind], undefined, undefined, error);
  }
  if (error instanceof ConnectError) return error;
  return new ConnectError("internal error", Code.Internal, undefined, undefined, error);
}
