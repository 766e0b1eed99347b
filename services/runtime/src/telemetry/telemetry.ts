/**
 * Tracing and metrics for a process: one tracer and one MeterProvider per service it runs, so
 * that every module of the embedded platform reports under its own `service.name`
 * (`commerce-<name>`). The tracers are the platform's own (platform-tracer.ts, ADR 0097) and
 * share one export pipeline: the SDK's batch processor over one OTLP/HTTP exporter
 * (otlp-span-exporter.ts). Each meter provider has its own periodic reader and exporter, as a
 * reader belongs to one provider. Nothing is registered globally, not even a context manager: a
 * call's span travels with its signal (trace-context.ts); only the SDK's own warnings go to the
 * process's log through the API's global diagnostic logger (sdk-problems.ts). Each signal is
 * off — no SDK started, a no-op tracer or meter — unless the settings configure it
 * (telemetry-settings.ts).
 *
 * Services get their tracer and meter from their context (`ctx.telemetry`), never from the
 * global API, which knows one provider per process.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import {
  createNoopMeter,
  INVALID_SPAN_CONTEXT,
  trace,
  type Meter,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from "@opentelemetry/sdk-metrics";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { Logger } from "../logging/logger.js";
import { OtlpSpanExporter } from "./otlp-span-exporter.js";
import { PlatformTracer } from "./platform-tracer.js";
import { reportSdkProblems } from "./sdk-problems.js";
import type { MetricsExportSettings, TelemetrySettings, TracesExportSettings } from "./telemetry-settings.js";

/** What a service sees of telemetry. */
export interface ServiceTelemetry {
  /** Whether spans are recorded at all; false: `tracer` is a no-op and no span is exported. */
  readonly enabled: boolean;
  /** Reports under the service's own `service.name`. */
  readonly tracer: Tracer;
  /** Whether metrics are recorded at all; false: `meter` is the API's no-op meter. */
  readonly metered: boolean;
  /** Reports under the service's own `service.name`, like `tracer`. */
  readonly meter: Meter;
}

export interface Telemetry {
  /** Whether anything is recorded: spans, metrics or both. */
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
  /** Where the SDK's own warnings and errors go (failed exports, dropped spans); nowhere if unset. */
  readonly logger?: Logger;
  /** Where spans go instead of the OTLP exporter (tests: an in-memory exporter's processor). */
  readonly spanProcessor?: SpanProcessor;
  /**
   * The reader of the service `serviceName`'s meter provider instead of a periodic OTLP export
   * (tests: one they collect from). A reader serves one provider: a new one per call.
   */
  readonly metricReader?: (serviceName: string) => MetricReader;
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
const offMeter = createNoopMeter();
const offService: ServiceTelemetry = { enabled: false, tracer: offTracer, metered: false, meter: offMeter };

/** A service's telemetry that records nothing: for work deliberately left untraced (a replay). */
export const untraced: ServiceTelemetry = offService;

/** `telemetry`'s metrics without its spans: for process plumbing worth measuring, not tracing. */
export function metricsOnly(telemetry: ServiceTelemetry): ServiceTelemetry {
  return { ...telemetry, enabled: false, tracer: offTracer };
}

/** Telemetry that records nothing and costs nothing. */
export const noTelemetry: Telemetry = {
  enabled: false,
  forService: () => offService,
  shutdown: () => Promise.resolve(),
};

export function startTelemetry(settings: TelemetrySettings, options: TelemetryOptions): Telemetry {
  const { traces, metrics } = settings;
  if (traces === undefined && metrics === undefined) return noTelemetry;
  if (options.logger !== undefined) reportSdkProblems(options.logger);
  const processor = traces === undefined ? undefined : (options.spanProcessor ?? exportPipeline(traces));
  const sampler = traces === undefined ? undefined : samplerFor(traces);
  const instanceId = randomUUID();
  const meterProviders: MeterProvider[] = [];
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
      const resource = serviceResource(settings, serviceName, instanceId);
      let tracer = offTracer;
      if (processor !== undefined && sampler !== undefined) {
        tracer = new PlatformTracer({ resource, instrumentationScope, processor }, sampler);
      }
      let meter = offMeter;
      if (metrics !== undefined) {
        const reader = options.metricReader?.(serviceName) ?? periodicExport(metrics);
        const provider = new MeterProvider({ resource, readers: [reader] });
        meterProviders.push(provider);
        meter = provider.getMeter(instrumentationScope.name);
      }
      const service: ServiceTelemetry = {
        enabled: processor !== undefined,
        tracer,
        metered: metrics !== undefined,
        meter,
      };
      services.set(name, service);
      return service;
    },
    async shutdown() {
      // The tracers share the processor: flushing it once exports every service's
      // spans. A meter provider's shutdown collects and exports once more, then stops.
      await Promise.all([
        processor?.forceFlush().then(() => processor.shutdown()),
        ...meterProviders.map((provider) => provider.shutdown()),
      ]);
    },
  };
}

/** The scope every tracer and meter of the platform reports under. */
const instrumentationScope = { name: "commerce-platform" };

/**
 * The resource of the service `serviceName`, shared by its tracer and meter providers:
 * `OTEL_RESOURCE_ATTRIBUTES`, the service's name, `service.version` (the platform's unless the
 * attributes set it) and `service.instance.id` (the process's unless they set it).
 */
function serviceResource(settings: TelemetrySettings, serviceName: string, instanceId: string): Resource {
  return resourceFromAttributes({
    ...settings.resourceAttributes,
    [ATTR_SERVICE_NAME]: serviceName,
    [ATTR_SERVICE_VERSION]: settings.resourceAttributes[ATTR_SERVICE_VERSION] ?? platformVersion(),
    [serviceInstanceId]: settings.resourceAttributes[serviceInstanceId] ?? instanceId,
  });
}

/** A reader that exports every `exportIntervalMs` through an OTLP/HTTP exporter of its own. */
function periodicExport(metrics: MetricsExportSettings): MetricReader {
  return new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: metrics.endpoint, headers: { ...metrics.headers } }),
    exportIntervalMillis: metrics.exportIntervalMs,
    exportTimeoutMillis: metrics.exportTimeoutMs,
  });
}

function exportPipeline(traces: TracesExportSettings): SpanProcessor {
  const { batch } = traces;
  return new BatchSpanProcessor(
    new OtlpSpanExporter({ url: traces.endpoint, headers: traces.headers, timeoutMs: batch.exportTimeoutMs }),
    {
      scheduledDelayMillis: batch.scheduleDelayMs,
      exportTimeoutMillis: batch.exportTimeoutMs,
      maxQueueSize: batch.maxQueueSize,
      maxExportBatchSize: batch.maxExportBatchSize,
    },
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

let version: string | undefined;

/** The platform's version (the runtime package's), `service.version` unless the resource sets it. */
function platformVersion(): string {
  version ??= (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
  return version;
}
