/**
 * The few typed errors that domain code throws. They are mapped to Connect codes in one place
 * (`toConnectError`), and from there to HTTP statuses by the edge. Their messages are written
 * for clients: they go on the wire, so they never carry internals.
 */
export type DomainErrorKind =
  | "invalid" // 400: the request breaks a rule the schema cannot express
  | "unauthenticated" // 401: wrong credentials
  | "forbidden" // 403: role or ownership
  | "not_found" // 404
  | "conflict" // 409: duplicate, or a move the state machine refuses
  | "throttled" // 429: too many attempts
  | "unavailable"; // 503: a dependency is down, retry later

export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** When the caller may try again (HTTP `Retry-After`), for throttled and unavailable. */
  readonly retryAfterSeconds: number | undefined;
}

export const invalid = (message: string): DomainError => new DomainError("invalid", message);
export const unauthenticated = (message: string): DomainError => new DomainError("unauthenticated", message);
export const forbidden = (message = "access denied"): DomainError => new DomainError("forbidden", message);
export const notFound = (message: string): DomainError => new DomainError("not_found", message);
export const conflict = (message: string): DomainError => new DomainError("conflict", message);
export const throttled = (message: string, retryAfterSeconds: number): DomainError =>
  new DomainError("throttled", message, { retryAfterSeconds });
export const unavailable = (message: string, cause?: unknown): DomainError =>
  new DomainError("unavailable", message, { cause });
/** 503 because this service is at capacity (not a dependency): retry after a moment. */
export const busy = (message: string, retryAfterSeconds: number): DomainError =>
  new DomainError("unavailable", message, { retryAfterSeconds });
