/**
 * A peer call that background work waits for (a migration's question to another service): asked
 * again while the answer is one that passes (the peer is starting, migrating itself, or away for
 * a moment), with a growing pause, for up to `patienceMs`; any other failure, and the last one,
 * is the caller's (ADR 0102).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { retry } from "./retry.js";

/** The answers of a peer that is not there yet, or not ready to answer. */
const passing: ReadonlySet<Code> = new Set([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Unknown,
  Code.Aborted,
  Code.ResourceExhausted,
]);

/** How long a peer may keep answering so before the call fails: 10 minutes. */
export const defaultPatienceMs = 10 * 60_000;

export interface PatientCallOptions {
  readonly signal?: AbortSignal;
  readonly patienceMs?: number;
}

export function patientPeerCall<T>(
  call: (signal: AbortSignal | undefined) => Promise<T>,
  options: PatientCallOptions = {},
): Promise<T> {
  return retry((_attempt, signal) => call(signal), {
    maxAttempts: Infinity,
    deadlineMs: options.patienceMs ?? defaultPatienceMs,
    backoff: { initialMs: 200, maxMs: 5_000, jitter: "equal" },
    retryable: (error) => passing.has(ConnectError.from(error).code),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}
