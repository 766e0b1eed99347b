/**
 * W3C Trace Context (`traceparent`, `tracestate`): the one propagation format of the platform,
 * on HTTP and gRPC headers, in process and on the network alike, and in event records (their
 * `traceparent` and `tracestate` fields; Kafka record headers of the same names).
 *
 * Within a process a call's trace context travels with the call's AbortSignal, which every
 * store, peer and analytics call of a handler already receives: the RPC server interceptor, the
 * edge and the consumers bind the context of their span to the signal they hand down
 * (`bindTraceContext`), and the spans below find their parent from the signal they are given
 * (`traceContextOf`). No context manager is installed: on Node 20 the only one that follows
 * awaits (AsyncLocalStorage) runs a hook on every promise of the process, which cost more than
 * all the rest of an unsampled request's tracing (ADR 0061), as it still
 * does on Node 22 by default. On Node 24 it costs what this costs, measured (ADR 0061):
 * a simpler design once the project requires 24, no faster one.
 */
import {
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { setMaxListeners } from "node:events";

const propagator = new W3CTraceContextPropagator();

export const traceContextHeaders: readonly string[] = propagator.fields();

const headersGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};
const headersSetter: TextMapSetter<Headers> = {
  set: (headers, key, value) => headers.set(key, value),
};
const recordSetter: TextMapSetter<Record<string, string>> = {
  set: (record, key, value) => {
    record[key] = value;
  },
};

/** The remote parent a request names, or the root context when it names none (or a bad one). */
export function contextFromHeaders(headers: Headers): Context {
  return propagator.extract(ROOT_CONTEXT, headers, headersGetter);
}

/** Writes the span context of `ctx` into `headers`; writes nothing when it holds no span. */
export function injectIntoHeaders(ctx: Context, headers: Headers): void {
  propagator.inject(ctx, headers, headersSetter);
}

export function injectIntoRecord(ctx: Context, record: Record<string, string>): void {
  propagator.inject(ctx, record, recordSetter);
}

/**
 * Whether `ctx` holds a span that its trace's sampler left out (the `sampled` flag unset). The
 * platform makes no span under such a parent and lets the parent's context travel instead: every
 * span it makes below a request or an event (RPC server and client, database, producer,
 * consumer) would be left out too by a parent-based sampler, and making and dropping them is most
 * of what tracing costs an unsampled request (ADR 0066).
 */
export function sampledOut(ctx: Context): boolean {
  const spanContext = trace.getSpanContext(ctx);
  return spanContext !== undefined && (spanContext.traceFlags & TraceFlags.SAMPLED) === 0;
}

/** The W3C fields of a carrier such as an event record; both absent when it was not traced. */
export interface TraceContextFields {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

const bySignal = new WeakMap<AbortSignal, Context>();

/**
 * Makes `ctx` the trace context of the call `signal` belongs to: what its store, peer and
 * analytics calls and the events it records hang under. Only for a signal made for this one
 * call (a request's, a record's); the entry goes with the signal.
 */
export function bindTraceContext(signal: AbortSignal, ctx: Context): void {
  bySignal.set(signal, ctx);
}

/**
 * Ends the binding of `signal` when its call is over: a signal may outlive its call and serve
 * the next (the edge keeps one per HTTP/1.1 connection), which must find it unbound.
 */
export function unbindTraceContext(signal: AbortSignal): void {
  bySignal.delete(signal);
}

/** The trace context bound to `signal`, if a call under it is running; else undefined. */
export function boundTraceContext(signal: AbortSignal): Context | undefined {
  return bySignal.get(signal);
}

/** The trace context bound to `signal`; the root context when none is (tracing off, no call). */
export function traceContextOf(signal: AbortSignal | undefined): Context {
  return (signal === undefined ? undefined : bySignal.get(signal)) ?? ROOT_CONTEXT;
}

/** Aborts never: the signal of work that no caller's end may cut short, and that no trace names. */
const never = new AbortController().signal;
// Every call under it listens while it runs (and stops listening when it ends).
setMaxListeners(0, never);

/**
 * A signal that never aborts, with the trace context of `signal`: for work a call starts that
 * must run to its end whatever becomes of the call (stock taken must be settled, a release must
 * land), yet belongs to the call's trace. Without a trace context, one shared signal.
 */
export function keepingTrace(signal: AbortSignal | undefined): AbortSignal {
  const ctx = signal === undefined ? undefined : bySignal.get(signal);
  if (ctx === undefined) return never;
  const { signal: kept } = new AbortController();
  bySignal.set(kept, ctx);
  return kept;
}

const noFields: TraceContextFields = {};

/**
 * The W3C fields of the trace context bound to `signal`, empty when none is: always so with
 * tracing off, which binds nothing.
 */
export function traceFieldsOf(signal: AbortSignal | undefined): TraceContextFields {
  const ctx = traceContextOf(signal);
  if (ctx === ROOT_CONTEXT) return noFields;
  const fields: Record<string, string> = {};
  propagator.inject(ctx, fields, recordSetter);
  const { traceparent, tracestate } = fields;
  return {
    ...(traceparent === undefined ? {} : { traceparent }),
    ...(tracestate === undefined ? {} : { tracestate }),
  };
}

const fieldsGetter: TextMapGetter<TraceContextFields> = {
  get: (fields, key) => (key === "traceparent" || key === "tracestate" ? fields[key] : undefined),
  keys: () => ["traceparent", "tracestate"],
};

/** The remote context `fields` name (an event's cause), or the root context when none or a bad one. */
export function contextFromFields(fields: TraceContextFields): Context {
  return propagator.extract(ROOT_CONTEXT, fields, fieldsGetter);
}
