import { Code, ConnectError } from "@connectrpc/connect";
import { DomainError, type DomainErrorKind } from "./domain-error.js";
import { UnavailableDependencyError } from "./unavailable-dependency-error.js";

/**
 * Response metadata that tells the client when to retry (delta-seconds). Both edges copy it to
 * the HTTP `Retry-After` header of the error response.
 */
export const retryAfterHeader = "retry-after";

const codes: Record<DomainErrorKind, Code> = {
  invalid: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  not_found: Code.NotFound,
  conflict: Code.AlreadyExists,
  throttled: Code.ResourceExhausted,
  unavailable: Code.Unavailable,
};

/** The text of UNAVAILABLE for a dependency that did not answer; the edges say the same. */
export const unavailableMessage = "service temporarily unavailable, retry later";

/**
 * The one mapping from what handlers throw to what goes on the wire. Domain errors keep their
 * client-facing message; a dependency that did not answer (`UnavailableDependencyError`, such as
 * the document store's) is UNAVAILABLE with a fixed message and `retry-after` (ADR 0112); a
 * ConnectError passes through (its `cause` stays server-side); anything else becomes INTERNAL
 * with a fixed message, so no stack trace or driver message leaks.
 */
export function toConnectError(error: unknown): ConnectError {
  if (error instanceof DomainError) {
    const metadata = error.retryAfterSeconds === undefined ? undefined : retryAfter(error.retryAfterSeconds);
    return new ConnectError(error.message, codes[error.kind], metadata, undefined, error);
  }
  if (error instanceof UnavailableDependencyError) {
    return new ConnectError(
      unavailableMessage,
      Code.Unavailable,
      retryAfter(error.retryAfterSeconds),
      undefined,
      error,
    );
  }
  if (error instanceof ConnectError) return error;
  return new ConnectError("internal error", Code.Internal, undefined, undefined, error);
}

function retryAfter(seconds: number): Record<string, string> {
  return { [retryAfterHeader]: String(Math.max(1, Math.ceil(seconds))) };
}
