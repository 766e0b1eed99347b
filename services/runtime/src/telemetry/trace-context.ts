/**
 * W3C Trace Context (`traceparent`, `tracestate`): the one propagation format of the platform,
 * on HTTP and gRPC headers, in process and on the network alike, and in event records (their
 * `traceparent` and `tracestate` fields; Kafka record headers of the same names).
 */
import {
  context,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

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
 * of what tracing costs an unsampled request (docs/decisions.md "Telemetry").
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

/**
 * The active span's context as W3C fields, empty when no span is active: always so with tracing
 * off, which installs no context manager.
 */
export function activeTraceContext(): TraceContextFields {
  const fields: Record<string, string> = {};
  propagator.inject(context.active(), fields, recordSetter);
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
