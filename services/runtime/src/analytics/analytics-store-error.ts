/**
 * What every analytics-store failure becomes. The store's own message (which may quote the SQL,
 * table names and values) stays in `cause`, for the server's log: the error's message is fixed,
 * and the runtime's error mapping (`toConnectError`) turns this error, like any that is not a
 * domain error, into INTERNAL "internal error", the contract's 500 for a failed analytics query.
 */
export type AnalyticsOperation = "command" | "insert" | "query" | "open";

export class AnalyticsStoreError extends Error {
  override readonly name = "AnalyticsStoreError";

  constructor(
    readonly operation: AnalyticsOperation,
    cause: unknown,
  ) {
    super(`analytics store ${operation} failed`, { cause });
    this.serverCode = serverCodeOf(cause);
  }

  /**
   * ClickHouse's error code when the store refused the statement (e.g. 60: unknown table, 62:
   * syntax error); undefined when it did not answer at all (refused connection, closed store).
   */
  readonly serverCode: number | undefined;
}

/** Both engines start their messages with `Code: <n>` (18.16: "Code: 60, e.displayText()…"). */
function serverCodeOf(cause: unknown): number | undefined {
  if (!(cause instanceof Error)) return undefined;
  const code = /^Code: (\d+)[.,]/.exec(cause.message)?.[1];
  return code === undefined ? undefined : Number(code);
}
