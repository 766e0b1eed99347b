/**
 * W3C Trace Context (`traceparent`, `tracestate`): the one propagation format of the platform,
 * on HTTP and gRPC headers, in process and on the network alike (and, later, in Kafka record
 * headers).
 */
import { ROOT_CONTEXT, type Context, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";
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
