/**
 * The few log calls the event plumbing makes, as a structural port. The signatures are the
 * subset of pino's (`logger.warn({ err }, "message")`), so the platform's pino logger is passed
 * in as is, and tests pass a recorder instead of parsing stdout.
 */
export interface EventLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
