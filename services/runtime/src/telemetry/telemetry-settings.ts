/**
 * The standard OpenTelemetry variables (`OTEL_*`), read once at start with every other setting,
 * problems collected (config/env-reader.ts). Telemetry is off, and costs nothing, unless an
 * exporter is configured: an OTLP endpoint, or `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER`
 * set explicitly, each signal unless its exporter is `none`; `OTEL_SDK_DISABLED=true` always wins (ADR 0060).
 */
import type { EnvReader } from "../config/env-reader.js";

export type SamplerName =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio";

const samplerNames: readonly SamplerName[] = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];

export interface TracesExportSettings {
  /** Where spans go: OTLP over HTTP with protobuf bodies (`…/v1/traces`). */
  readonly endpoint: string;
  /** `OTEL_EXPORTER_OTLP_HEADERS` / `…_TRACES_HEADERS` (an authorization header, say). */
  readonly headers: Readonly<Record<string, string>>;
  readonly sampler: SamplerName;
  /** The ratio of the `…traceidratio` samplers, from 0 to 1. */
  readonly samplerRatio: number;
  /** How finished spans are gathered before they go out (`OTEL_BSP_*`). */
  readonly batch: SpanBatchSettings;
}

/** The batch span processor's settings, the specification's defaults unless `OTEL_BSP_*` say. */
export interface SpanBatchSettings {
  /** `OTEL_BSP_SCHEDULE_DELAY`: the longest a span waits for its batch (5 000 ms). */
  readonly scheduleDelayMs: number;
  /** `OTEL_BSP_EXPORT_TIMEOUT`: the longest an export may take (30 000 ms). */
  readonly exportTimeoutMs: number;
  /** `OTEL_BSP_MAX_QUEUE_SIZE`: spans held at most; more are dropped until an export frees room (2 048). */
  readonly maxQueueSize: number;
  /** `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`: spans per export at most, no more than the queue holds (512). */
  readonly maxExportBatchSize: number;
}

export interface MetricsExportSettings {
  /** Where metrics go: OTLP over HTTP with protobuf bodies (`…/v1/metrics`). */
  readonly endpoint: string;
  /** `OTEL_EXPORTER_OTLP_HEADERS` / `…_METRICS_HEADERS`. */
  readonly headers: Readonly<Record<string, string>>;
  /** `OTEL_METRIC_EXPORT_INTERVAL`: milliseconds between two exports (60 000 by default). */
  readonly exportIntervalMs: number;
  /** `OTEL_METRIC_EXPORT_TIMEOUT`: the longest an export may take (30 000 ms by default). */
  readonly exportTimeoutMs: number;
}

export interface TelemetrySettings {
  /** Undefined: tracing is off (nothing configured, disabled, or `OTEL_TRACES_EXPORTER=none`). */
  readonly traces: TracesExportSettings | undefined;
  /** Undefined: metrics are off (nothing configured, disabled, or `OTEL_METRICS_EXPORTER=none`). */
  readonly metrics: MetricsExportSettings | undefined;
  /** `OTEL_RESOURCE_ATTRIBUTES`, decoded. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /**
   * `OTEL_SERVICE_NAME` (or `service.name` in the resource attributes): honoured only by a
   * process that runs one service; embedded modules keep their own names.
   */
  readonly serviceName: string | undefined;
}

/** The default OTLP/HTTP endpoint of the specification (a collector on this host). */
const defaultEndpoint = "http://localhost:4318";
const exporters = ["otlp", "none"];

export function readTelemetrySettings(env: EnvReader): TelemetrySettings {
  const disabled = readBoolean(env, "OTEL_SDK_DISABLED");
  const tracesExporter = readExporter(env, "OTEL_TRACES_EXPORTER");
  const metricsExporter = readExporter(env, "OTEL_METRICS_EXPORTER");
  const baseEndpoint = env.url("OTEL_EXPORTER_OTLP_ENDPOINT", ["http:", "https:"]);
  const tracesEndpoint = env.url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", ["http:", "https:"]);
  const metricsEndpoint = env.url("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", ["http:", "https:"]);
  const configured =
    baseEndpoint !== undefined ||
    tracesEndpoint !== undefined ||
    metricsEndpoint !== undefined ||
    tracesExporter !== undefined ||
    metricsExporter !== undefined;
  for (const name of [
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
  ]) {
    const protocol = env.string(name);
    if (protocol !== undefined && protocol !== "http/protobuf") {
      env.problem(`${name} must be http/protobuf (the only OTLP protocol supported), got "${protocol}"`);
    }
  }
  const commonHeaders = readKeyValues(env, "OTEL_EXPORTER_OTLP_HEADERS");
  const headers = { ...commonHeaders, ...readKeyValues(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS") };
  const metricsHeaders = { ...commonHeaders, ...readKeyValues(env, "OTEL_EXPORTER_OTLP_METRICS_HEADERS") };
  const exportIntervalMs = readMilliseconds(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000);
  const exportTimeoutMs = readMilliseconds(env, "OTEL_METRIC_EXPORT_TIMEOUT", 30_000);
  const { sampler, samplerRatio } = readSampler(env);
  const batch = readSpanBatch(env);
  const resourceAttributes = readKeyValues(env, "OTEL_RESOURCE_ATTRIBUTES");
  const tracing = configured && disabled !== true && tracesExporter !== "none";
  const metering = configured && disabled !== true && metricsExporter !== "none";
  const base = (baseEndpoint ?? defaultEndpoint).replace(/\/+$/, "");
  return {
    traces: tracing
      ? {
          endpoint: tracesEndpoint ?? `${base}/v1/traces`,
          headers,
          sampler,
          samplerRatio,
          batch,
        }
      : undefined,
    metrics: metering
      ? {
          endpoint: metricsEndpoint ?? `${base}/v1/metrics`,
          headers: metricsHeaders,
          // The reader requires the timeout not to exceed the interval.
          exportIntervalMs,
          exportTimeoutMs: Math.min(exportTimeoutMs, exportIntervalMs),
        }
      : undefined,
    resourceAttributes,
    serviceName: env.string("OTEL_SERVICE_NAME") ?? resourceAttributes["service.name"],
  };
}

function readBoolean(env: EnvReader, name: string): boolean | undefined {
  const raw = env.string(name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw !== "true" && raw !== "false") env.problem(`${name} must be true or false, got "${env.raw(name)}"`);
  return raw === "true";
}

/** A whole number of milliseconds, at least 1. */
function readMilliseconds(env: EnvReader, name: string, fallback: number): number {
  return readWhole(env, name, fallback, "a positive whole number of milliseconds");
}

/** A whole number, at least 1; `what` names it in the problem a bad value makes. */
function readWhole(env: EnvReader, name: string, fallback: number, what = "a positive whole number"): number {
  const raw = env.string(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || !Number.isSafeInteger(value)) {
    env.problem(`${name} must be ${what}, got "${raw}"`);
    return fallback;
  }
  return value;
}

function readSpanBatch(env: EnvReader): SpanBatchSettings {
  const maxQueueSize = readWhole(env, "OTEL_BSP_MAX_QUEUE_SIZE", 2048);
  const maxExportBatchSize = readWhole(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", Math.min(512, maxQueueSize));
  if (maxExportBatchSize > maxQueueSize) {
    env.problem(
      `OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`,
    );
  }
  return {
    scheduleDelayMs: readMilliseconds(env, "OTEL_BSP_SCHEDULE_DELAY", 5_000),
    exportTimeoutMs: readMilliseconds(env, "OTEL_BSP_EXPORT_TIMEOUT", 30_000),
    maxQueueSize,
    maxExportBatchSize,
  };
}

function readExporter(env: EnvReader, name: string): string | undefined {
  const raw = env.string(name);
  if (raw !== undefined && !exporters.includes(raw)) {
    env.problem(`${name} must be one of ${exporters.join(", ")}, got "${raw}"`);
  }
  return raw;
}

function readSampler(env: EnvReader): { sampler: SamplerName; samplerRatio: number } {
  const raw = env.string("OTEL_TRACES_SAMPLER") ?? "parentbased_always_on";
  const sampler = samplerNames.includes(raw as SamplerName) ? (raw as SamplerName) : "parentbased_always_on";
  if (sampler !== raw) {
    env.problem(`OTEL_TRACES_SAMPLER must be one of ${samplerNames.join(", ")}, got "${raw}"`);
  }
  const arg = env.string("OTEL_TRACES_SAMPLER_ARG");
  if (arg === undefined || !sampler.endsWith("traceidratio")) return { sampler, samplerRatio: 1 };
  const ratio = Number(arg);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(arg) || ratio > 1) {
    env.problem(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${arg}"`);
    return { sampler, samplerRatio: 1 };
  }
  return { sampler, samplerRatio: ratio };
}

/** `key=value,key2=value2` with percent-encoded values (W3C Baggage's format, as its specification says). */
function readKeyValues(env: EnvReader, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = env.string(name);
  if (raw === undefined) return out;
  for (const item of raw.split(",")) {
    const at = item.indexOf("=");
    const key = item.slice(0, at).trim();
    let value: string | undefined;
    try {
      value = at <= 0 || key === "" ? undefined : decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      value = undefined;
    }
    if (value === undefined) {
      // The value may be a secret (an authorization header): name the variable, not the item.
      env.problem(`${name} must be a list of key=value pairs separated by commas`);
      return {};
    }
    out[key] = value;
  }
  return out;
}
