/**
 * Whether a failure is the infrastructure's: a dependency that did not answer, a connection
 * refused or reset, a wait that ran out, a broker that is not the leader, a peer that is
 * unavailable. Such a failure passes by itself; any other (a refusal of the request, a bug)
 * does not. A consumer retries both without limit and logs them apart: an infrastructure
 * failure as a warning, any other as an error, which someone has to fix (ADR 0110).
 *
 * The error and its causes are looked at, since adapters wrap what their client threw.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { DomainError } from "./domain-error.js";
import { UnavailableDependencyError } from "./unavailable-dependency-error.js";

/** Node's and undici's codes of a connection that failed or a name that did not resolve. */
const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** Codes a peer answers when it cannot serve now. */
const unavailableCodes = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted]);

/** How far down the chain of causes to look. */
const maxDepth = 8;

export function isInfrastructureFailure(error: unknown): boolean {
  return anyInChain(error, isInfrastructureItself);
}

/**
 * Whether the error, or one of its causes, is Node's own of a connection that failed
 * (`ECONNRESET`, `ECONNREFUSED`…): what a client library lets through unwrapped at times.
 */
export function isConnectionFailure(error: unknown): boolean {
  return anyInChain(error, hasNetworkCode);
}

function anyInChain(error: unknown, test: (error: unknown) => boolean): boolean {
  let current = error;
  for (let depth = 0; depth < maxDepth && current !== undefined && current !== null; depth++) {
    if (test(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

function hasNetworkCode(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && networkCodes.has(code);
}

function isInfrastructureItself(error: unknown): boolean {
  if (error instanceof UnavailableDependencyError) return true;
  if (error instanceof DomainError) return error.kind === "unavailable" || error.kind === "throttled";
  if (error instanceof ConnectError) return unavailableCodes.has(error.code);
  if (typeof error !== "object" || error === null) return false;
  if (hasNetworkCode(error)) return true;
  const { name, retriable } = error as { name?: unknown; retriable?: unknown };
  // AbortSignal.timeout's reason: a wait of ours ran out.
  if (name === "TimeoutError") return true;
  // KafkaJS marks what its own retries would retry (a lost leader, a refused connection).
  return retriable === true;
}
