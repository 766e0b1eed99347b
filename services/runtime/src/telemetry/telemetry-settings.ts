/**
 * The standard OpenTelemetry variables (`OTEL_*`), read once at start with every other setting,
 * problems collected (config/env-reader.ts). Telemetry is off, and costs nothing, unless an
 * exporter is configured: an OTLP endpoint, or `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER`
 * set explicitly, each signal unless its exporter is `none`; `OTEL_SDK_DISABLED=true` always wins (ADR 0060).
 */
import type { EnvReader } from "../config/env-reader.js";
import { declareSettings, serviceProcesses, type DefaultedSetting, type Setting } from "../config/setting.js";

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

/** The only OTLP protocol the exporters speak. */
const otlpProtocol = "http/protobuf";
const readBy = ["embedded", ...serviceProcesses] as const;

export const telemetrySettings = declareSettings({
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    whenUnset: "telemetry off",
    meaning: "OTLP/HTTP collector (`/v1/traces`, `/v1/metrics` appended); set, traces and metrics are on",
    readBy,
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    whenUnset: "the one above",
    meaning: "Full traces URL, instead of the one above",
    readBy,
  },
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: {
    whenUnset: "the one above",
    meaning: "Full metrics URL, instead of the one above",
    readBy,
  },
  OTEL_TRACES_EXPORTER: {
    whenUnset: "`otlp` once an endpoint is set",
    meaning: "`otlp` (on; `http://localhost:4318` unless an endpoint is set) or `none` (off)",
    readBy,
  },
  OTEL_METRICS_EXPORTER: {
    whenUnset: "`otlp` once an endpoint is set",
    meaning: "`otlp` (on) or `none` (off); traces and metrics are independent",
    readBy,
  },
  OTEL_EXPORTER_OTLP_PROTOCOL: {
    default: otlpProtocol,
    meaning: "The only protocol supported",
    readBy,
  },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: {
    default: otlpProtocol,
    meaning: "The same, for traces",
    readBy,
  },
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: {
    default: otlpProtocol,
    meaning: "The same, for metrics",
    readBy,
  },
  OTEL_EXPORTER_OTLP_HEADERS: {
    whenUnset: "none",
    meaning: "`key=value,…` sent to the collector (an authorization header, say)",
    readBy,
  },
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: {
    whenUnset: "none",
    meaning: "More headers for traces (over the ones above)",
    readBy,
  },
  OTEL_EXPORTER_OTLP_METRICS_HEADERS: {
    whenUnset: "none",
    meaning: "More headers for metrics (over the ones above)",
    readBy,
  },
  OTEL_TRACES_SAMPLER: {
    default: "parentbased_always_on",
    meaning: "`always_on`, `always_off`, `traceidratio`, or `parentbased_` and one of those",
    readBy,
  },
  OTEL_TRACES_SAMPLER_ARG: {
    default: "1",
    meaning: "Ratio from 0 to 1 of the `…traceidratio` samplers",
    readBy,
  },
  OTEL_BSP_SCHEDULE_DELAY: {
    default: "5000",
    meaning: "Longest a finished span waits for its batch, in milliseconds",
    readBy,
  },
  OTEL_BSP_EXPORT_TIMEOUT: {
    default: "30000",
    meaning: "Longest span export, in milliseconds",
    readBy,
  },
  OTEL_BSP_MAX_QUEUE_SIZE: {
    default: "2048",
    meaning: "Spans held at most; more are dropped until an export frees room",
    readBy,
  },
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: {
    default: "512",
    meaning: "Spans per export at most (no more than the queue size)",
    readBy,
  },
  OTEL_METRIC_EXPORT_INTERVAL: {
    default: "60000",
    meaning: "Milliseconds between two metric exports",
    readBy,
  },
  OTEL_METRIC_EXPORT_TIMEOUT: {
    default: "30000",
    meaning: "Longest metric export, in milliseconds (at most the interval)",
    readBy,
  },
  OTEL_RESOURCE_ATTRIBUTES: {
    whenUnset: "none",
    meaning: "`key=value,…` added to every span's and metric's resource",
    readBy,
  },
  OTEL_SERVICE_NAME: {
    whenUnset: "`commerce-<service>`",
    meaning: "A single-service process's name; embedded modules keep their own",
    readBy,
  },
  OTEL_SDK_DISABLED: {
    default: "false",
    meaning: "`true` turns telemetry off whatever else is set",
    readBy,
  },
});

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
  const settings = telemetrySettings;
  const disabled = env.boolean(settings.OTEL_SDK_DISABLED);
  const tracesExporter = readExporter(env, settings.OTEL_TRACES_EXPORTER);
  const metricsExporter = readExporter(env, settings.OTEL_METRICS_EXPORTER);
  const baseEndpoint = env.url(settings.OTEL_EXPORTER_OTLP_ENDPOINT, ["http:", "https:"]);
  const tracesEndpoint = env.url(settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, ["http:", "https:"]);
  const metricsEndpoint = env.url(settings.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, ["http:", "https:"]);
  const configured =
    baseEndpoint !== undefined ||
    tracesEndpoint !== undefined ||
    metricsEndpoint !== undefined ||
    tracesExporter !== undefined ||
    metricsExporter !== undefined;
  for (const setting of [
    settings.OTEL_EXPORTER_OTLP_PROTOCOL,
    settings.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
    settings.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL,
  ]) {
    const protocol = env.string(setting);
    if (protocol !== undefined && protocol !== otlpProtocol) {
      env.problem(
        `${setting.name} must be ${otlpProtocol} (the only OTLP protocol supported), got "${protocol}"`,
      );
    }
  }
  const commonHeaders = readKeyValues(env, settings.OTEL_EXPORTER_OTLP_HEADERS);
  const headers = { ...commonHeaders, ...readKeyValues(env, settings.OTEL_EXPORTER_OTLP_TRACES_HEADERS) };
  const metricsHeaders = {
    ...commonHeaders,
    ...readKeyValues(env, settings.OTEL_EXPORTER_OTLP_METRICS_HEADERS),
  };
  const exportIntervalMs = readMilliseconds(env, settings.OTEL_METRIC_EXPORT_INTERVAL);
  const exportTimeoutMs = readMilliseconds(env, settings.OTEL_METRIC_EXPORT_TIMEOUT);
  const { sampler, samplerRatio } = readSampler(env);
  const batch = readSpanBatch(env);
  const resourceAttributes = readKeyValues(env, settings.OTEL_RESOURCE_ATTRIBUTES);
  const tracing = configured && !disabled && tracesExporter !== "none";
  const metering = configured && !disabled && metricsExporter !== "none";
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
    serviceName: env.string(settings.OTEL_SERVICE_NAME) ?? resourceAttributes["service.name"],
  };
}

/** A whole number of milliseconds, at least 1. */
function readMilliseconds(env: EnvReader, setting: DefaultedSetting): number {
  return readWhole(env, setting, Number(setting.default), "a positive whole number of milliseconds");
}

/** A whole number, at least 1; `what` names it in the problem a bad value makes. */
function readWhole(
  env: EnvReader,
  setting: Setting,
  fallback: number,
  what = "a positive whole number",
): number {
  const raw = env.string(setting);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || !Number.isSafeInteger(value)) {
    env.problem(`${setting.name} must be ${what}, got "${raw}"`);
    return fallback;
  }
  return value;
}

function readSpanBatch(env: EnvReader): SpanBatchSettings {
  const { OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE } = telemetrySettings;
  const maxQueueSize = readWhole(env, OTEL_BSP_MAX_QUEUE_SIZE, Number(OTEL_BSP_MAX_QUEUE_SIZE.default));
  const maxExportBatchSize = readWhole(
    env,
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
    Math.min(Number(OTEL_BSP_MAX_EXPORT_BATCH_SIZE.default), maxQueueSize),
  );
  if (maxExportBatchSize > maxQueueSize) {
    env.problem(
      `OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`,
    );
  }
  return {
    scheduleDelayMs: readMilliseconds(env, telemetrySettings.OTEL_BSP_SCHEDULE_DELAY),
    exportTimeoutMs: readMilliseconds(env, telemetrySettings.OTEL_BSP_EXPORT_TIMEOUT),
    maxQueueSize,
    maxExportBatchSize,
  };
}

function readExporter(env: EnvReader, setting: Setting): string | undefined {
  const raw = env.string(setting);
  if (raw !== undefined && !exporters.includes(raw)) {
    env.problem(`${setting.name} must be one of ${exporters.join(", ")}, got "${raw}"`);
  }
  return raw;
}

function readSampler(env: EnvReader): { sampler: SamplerName; samplerRatio: number } {
  const { OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG } = telemetrySettings;
  const raw = env.stringOrDefault(OTEL_TRACES_SAMPLER);
  const fallback = OTEL_TRACES_SAMPLER.default;
  const sampler = samplerNames.includes(raw as SamplerName) ? (raw as SamplerName) : fallback;
  if (sampler !== raw) {
    env.problem(`OTEL_TRACES_SAMPLER must be one of ${samplerNames.join(", ")}, got "${raw}"`);
  }
  const wholeRatio = { sampler, samplerRatio: Number(OTEL_TRACES_SAMPLER_ARG.default) };
  const arg = env.string(OTEL_TRACES_SAMPLER_ARG);
  if (arg === undefined || !sampler.endsWith("traceidratio")) return wholeRatio;
  const ratio = Number(arg);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(arg) || ratio > 1) {
    env.problem(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${arg}"`);
    return wholeRatio;
  }
  return { sampler, samplerRatio: ratio };
}

/** `key=value,key2=value2` with percent-encoded values (W3C Baggage's format, as its specification says). */
function readKeyValues(env: EnvReader, setting: Setting): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = env.string(setting);
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
      env.problem(`${setting.name} must be a list of key=value pairs separated by commas`);
      return {};
    }
    out[key] = value;
  }
  return out;
}
