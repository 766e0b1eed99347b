/**
 * The cause of recorded events: the W3C context (`traceparent`, `tracestate`) of the call that
 * records them, the span bound to its signal (telemetry/trace-context.ts): a request's SERVER
 * span, a consumer's CONSUMER span. Captured by the write that puts them in the outbox, not by
 * the relay that publishes them later, so that the relay's publish and the consumers' processing
 * join the trace of the request however late the relay runs. Nothing with tracing off.
 */
import { traceFieldsOf } from "../telemetry/trace-context.js";
import type { OutboxEntry } from "./outbox.js";

/** `events`, each with the context of the call `signal` belongs to unless it names one already. */
export function withCause(
  events: readonly OutboxEntry[],
  signal: AbortSignal | undefined,
): readonly OutboxEntry[] {
  if (events.length === 0) return events;
  const cause = traceFieldsOf(signal);
  if (cause.traceparent === undefined) return events;
  return events.map((event) => (event.traceparent === undefined ? { ...event, ...cause } : event));
}
