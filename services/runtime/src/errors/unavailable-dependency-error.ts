/**
 * A dependency of the service did not answer: its store is unreachable or stopped answering, a
 * connection was refused or reset, a wait for it ran out. The request did nothing wrong and may
 * succeed if tried again, so the error mapping (`toConnectError`) answers UNAVAILABLE (503) with
 * `Retry-After`, and a consumer keeps its record and retries it (ADR 0110, ADR 0112). The
 * message names the dependency only: the driver's own error stays in `cause`, for the log.
 */
export class UnavailableDependencyError extends Error {
  override readonly name: string = "UnavailableDependencyError";

  constructor(
    /** What did not answer, for the log: `document store`. */
    readonly dependency: string,
    options: { readonly cause?: unknown; readonly retryAfterSeconds?: number } = {},
  ) {
    super(`${dependency} is unavailable`, { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds ?? defaultRetryAfterSeconds;
  }

  /** When a client may try again (HTTP `Retry-After`). */
  readonly retryAfterSeconds: number;
}

/**
 * About how long a dependency takes to be seen again once it is back: the driver's next look
 * at its server, readiness's next ping (ADR 0112).
 */
const defaultRetryAfterSeconds = 5;
