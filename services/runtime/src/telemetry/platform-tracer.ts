/**
 * The tracer each service records its spans with (telemetry.ts): the OpenTelemetry API's
 * `Tracer`, sampled by the SDK's samplers, ending its spans into an SDK span processor (the
 * batch processor in a deployment, a test's in-memory one in the specs). It stands in for the
 * SDK's tracer because a span is most of what tracing costs a sampled request, and the SDK's
 * does work the platform never needs per span: its own span metrics, a suppression check, a copy
 * of every attribute map before the sampler sees it. A span the sampler leaves out is the API's
 * non-recording span with fresh ids, the parent's trace and no flag: what the next hop continues.
 */
import {
  context as apiContext,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type Tracer,
} from "@opentelemetry/api";
import { RandomIdGenerator, SamplingDecision, type Sampler } from "@opentelemetry/sdk-trace-base";
import { RecordedSpan, type SpanOrigin } from "./recorded-span.js";

const ids = new RandomIdGenerator();
const noAttributes = {};
const noLinks: never[] = [];

export class PlatformTracer implements Tracer {
  readonly #origin: SpanOrigin;
  readonly #sampler: Sampler;

  constructor(origin: SpanOrigin, sampler: Sampler) {
    this.#origin = origin;
    this.#sampler = sampler;
  }

  startSpan(name: string, options: SpanOptions = {}, context: Context = apiContext.active()): Span {
    if (options.root === true) context = trace.deleteSpan(context);
    const parent = trace.getSpanContext(context);
    const valid = parent !== undefined && trace.isSpanContextValid(parent) ? parent : undefined;
    const traceId = valid?.traceId ?? ids.generateTraceId();
    const spanId = ids.generateSpanId();
    const kind = options.kind ?? SpanKind.INTERNAL;
    const sampling = this.#sampler.shouldSample(
      context,
      traceId,
      name,
      kind,
      options.attributes ?? noAttributes,
      options.links ?? noLinks,
    );
    const traceState = sampling.traceState ?? valid?.traceState;
    const traceFlags =
      sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    // Every request makes one: no spread of a second object on this path.
    const spanContext: SpanContext =
      traceState === undefined
        ? { traceId, spanId, traceFlags }
        : { traceId, spanId, traceFlags, traceState };
    if (sampling.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    const attributes =
      sampling.attributes === undefined
        ? options.attributes
        : { ...options.attributes, ...sampling.attributes };
    const span = new RecordedSpan(
      this.#origin,
      spanContext,
      name,
      kind,
      valid,
      attributes,
      options.links,
      options.startTime,
    );
    this.#origin.processor.onStart(span, context);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as SpanOptions) : {};
    const context = rest.length > 2 ? (rest[1] as Context) : apiContext.active();
    const span = this.startSpan(name, options, context);
    return apiContext.with(
      trace.setSpan(context, span),
      fn as (span: Span) => ReturnType<F>,
      undefined,
      span,
    );
  }
}
