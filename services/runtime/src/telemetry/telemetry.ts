/**
 * Tracing for a process: one TracerProvider per service it runs, so that every module of the
 * embedded platform reports under its own `service.name` (`commerce-<name>`), all sharing one
 * export pipeline (a batch processor over one OTLP/HTTP exporter). Nothing is registered
 * globally but the context manager (AsyncLocalStorage), which carries the active span across
 * awaits so that peer calls and log lines find it. Off — no SDK started, no context manager, a
 * no-op tracer — unless the settings configure an exporter (telemetry-settings.ts).
 *
 * Services get their tracer from their context (`ctx.telemetry.tracer`), never from the global
 * API, which knows one provider per process.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { context, INVALID_SPAN_CONTEXT, trace, type Span, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { TelemetrySettings, TracesExportSettings } from "./telemetry-settings.js";

/** What a service sees of telemetry. */
export interface ServiceTelemetry {
  /** Whether spans are recorded at all; false: `tracer` is a no-op and nothing is exported. */
  readonly enabled: boolean;
  /** Reports under the service's own `service.name`. */
  readonly tracer: Tracer;
}

export interface Telemetry {
  readonly enabled: boolean;
  /** The telemetry of the service `name`, reporting as `commerce-<name>`. */
  forService(name: string): ServiceTelemetry;
  /** Exports what is still buffered, then stops (the last step of a shutdown). */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /**
   * Whether this process runs a single service, which `OTEL_SERVICE_NAME` may rename; in
   * embedded mode every module keeps its own name.
   */
  readonly singleService: boolean;
  /** Where spans go instead of the OTLP exporter (tests: an in-memory exporter's processor). */
  readonly spanProcessor?: SpanProcessor;
}

/** The semantic conventions' `service.instance.id` (still in their incubating set). */
const serviceInstanceId = "service.instance.id";

/** A span that records nothing and propagates nothing (an invalid context). */
const offSpan = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const offTracer: Tracer = {
  startSpan: () => offSpan,
  // Its overloads all end with the function to run.
  startActiveSpan: (...args: unknown[]) => (args[args.length - 1] as (span: Span) => never)(offSpan),
};
const offService: ServiceTelemetry = { enabled: false, tracer: offTracer };

/** A service's telemetry that records nothing: for work deliberately left untraced (a replay). */
export const untraced: ServiceTelemetry = offService;

/** Telemetry that records nothing and costs nothing. */
export const noTelemetry: Telemetry = {
  enabled: false,
  forService: () => offService,
  shutdown: () => Promise.resolve(),
};

export function startTelemetry(settings: TelemetrySettings, options: TelemetryOptions): Telemetry {
  const traces = settings.traces;
  if (traces === undefined) return noTelemetry;
  installContextManager();
  const processor = options.spanProcessor ?? exportPipeline(traces);
  const sampler = samplerFor(traces);
  const instanceId = randomUUID();
  const providers = new Map<string, BasicTracerProvider>();
  const services = new Map<string, ServiceTelemetry>();
  return {
    enabled: true,
    forService(name) {
      const known = services.get(name);
      if (known !== undefined) return known;
      const serviceName =
        options.singleService && settings.serviceName !== undefined
          ? settings.serviceName
          : `commerce-${name}`;
      const provider = new BasicTracerProvider({
        sampler,
        resource: resourceFromAttributes({
          ...settings.resourceAttributes,
          [ATTR_SERVICE_NAME]: serviceName,
          [ATTR_SERVICE_VERSION]: settings.resourceAttributes[ATTR_SERVICE_VERSION] ?? platformVersion(),
          [serviceInstanceId]: settings.resourceAttributes[serviceInstanceId] ?? instanceId,
        }),
        spanProcessors: [processor],
      });
      providers.set(name, provider);
      const service: ServiceTelemetry = { enabled: true, tracer: provider.getTracer("commerce-platform") };
      services.set(name, service);
      return service;
    },
    async shutdown() {
      // The providers share the processor: flushing it once exports every service's spans.
      await processor.forceFlush();
      await processor.shutdown();
    },
  };
}

function exportPipeline(traces: TracesExportSettings): SpanProcessor {
  return new BatchSpanProcessor(
    new OTLPTraceExporter({ url: traces.endpoint, headers: { ...traces.headers } }),
  );
}

function samplerFor(traces: TracesExportSettings): Sampler {
  switch (traces.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(traces.samplerRatio);
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(traces.samplerRatio) });
  }
}

let contextManagerInstalled = false;

/** One per process, whatever number of telemetries it starts (tests start several). */
function installContextManager(): void {
  if (contextManagerInstalled) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerInstalled = true;
}

let version: string | undefined;

/** The platform's version (the runtime package's), `service.version` unless the resource sets it. */
function platformVersion(): string {
  version ??= (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
  return version;
}
