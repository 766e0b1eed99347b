/**
 * Thrown by a consumer when retrying cannot help: the record's payload does not parse, or its
 * type is not the one the topic's consumer understands. `withRetries` sends such a record to
 * the dead-letter topic at once instead of spending every attempt (and the partition's time)
 * on it.
 */
export class PermanentEventError extends Error {
  override readonly name = "PermanentEventError";
}
