/**
 * RPC errors in the one JSON error body of both edges (services/runtime/src/server/error-body.ts),
 * through the standard gRPC → HTTP status table (ADR 0005).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { unavailableMessage } from "@commerce/runtime/errors";
import { errorBody, type ErrorBody } from "@commerce/runtime/server";

const statusOfCode: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

const serverMessages: Partial<Record<Code, string>> = {
  [Code.Unavailable]: unavailableMessage,
  [Code.DeadlineExceeded]: "the service did not answer in time",
  [Code.Unimplemented]: "not implemented",
};

/** The gRPC code name as in the gRPC spec (NOT_FOUND), from Connect's enum (NotFound). */
function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

export function errorBodyFromConnectError(error: ConnectError): ErrorBody {
  const status = statusOfCode[error.code];
  // Server-side failures get a fixed text: whatever caused them stays in the service's log.
  const message = status < 500 ? error.rawMessage : (serverMessages[error.code] ?? "internal error");
  return errorBody(status, codeName(error.code), message);
}

export { ConnectError };
