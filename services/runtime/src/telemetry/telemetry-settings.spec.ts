import { expect } from "chai";
import { EnvReader, type Env } from "../config/env-reader.js";
import { configProblems } from "../testing/config-problems.js";
import { readTelemetrySettings, type TelemetrySettings } from "./telemetry-settings.js";

function read(env: Env): TelemetrySettings {
  const reader = new EnvReader(env);
  return reader.finish(readTelemetrySettings(reader));
}

function problemsOf(env: Env): readonly string[] {
  return configProblems(() => read(env));
}

describe("readTelemetrySettings", () => {
  it("leaves tracing off when no exporter is configured", () => {
    expect(read({}).traces).to.equal(undefined);
    expect(read({ OTEL_TRACES_SAMPLER: "always_on", OTEL_SERVICE_NAME: "x" }).traces).to.equal(undefined);
  });

  it("turns tracing on for an OTLP endpoint, with the specification's defaults", () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).traces).to.deep.equal({
      endpoint: "http://collector:4318/v1/traces",
      headers: {},
      sampler: "parentbased_always_on",
      samplerRatio: 1,
      batch: { scheduleDelayMs: 5_000, exportTimeoutMs: 30_000, maxQueueSize: 2048, maxExportBatchSize: 512 },
    });
    expect(read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://c/custom" }).traces?.endpoint).to.equal(
      "https://c/custom",
    );
    expect(read({ OTEL_TRACES_EXPORTER: "otlp" }).traces?.endpoint).to.equal(
      "http://localhost:4318/v1/traces",
    );
    expect(read({ OTEL_METRICS_EXPORTER: "otlp" }).traces).to.not.equal(undefined);
  });

  it("lets OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win over an endpoint", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(read({ ...endpoint, OTEL_SDK_DISABLED: "true" }).traces).to.equal(undefined);
    expect(read({ ...endpoint, OTEL_SDK_DISABLED: "TRUE" }).traces).to.equal(undefined);
    expect(read({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).traces).to.equal(undefined);
    expect(read({ ...endpoint, OTEL_SDK_DISABLED: "false" }).traces).to.not.equal(undefined);
  });

  it("turns metrics on like tracing, each signal independently, with the specification's defaults", () => {
    expect(read({}).metrics).to.equal(undefined);
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" }).metrics).to.deep.equal({
      endpoint: "http://collector:4318/v1/metrics",
      headers: {},
      exportIntervalMs: 60_000,
      exportTimeoutMs: 30_000,
    });
    expect(read({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "https://c/custom" }).metrics?.endpoint).to.equal(
      "https://c/custom",
    );
    expect(read({ OTEL_TRACES_EXPORTER: "otlp" }).metrics?.endpoint).to.equal(
      "http://localhost:4318/v1/metrics",
    );
    const metricsOnly = read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" });
    expect(metricsOnly.traces).to.equal(undefined);
    expect(metricsOnly.metrics?.endpoint).to.equal("http://c:4318/v1/metrics");
    const tracesOnly = read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_METRICS_EXPORTER: "none" });
    expect(tracesOnly.traces?.endpoint).to.equal("http://c:4318/v1/traces");
    expect(tracesOnly.metrics).to.equal(undefined);
    expect(
      read({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }).metrics,
    ).to.equal(undefined);
  });

  it("reads the metrics' export interval and timeout, and their own headers", () => {
    const settings = read({
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
      OTEL_METRIC_EXPORT_TIMEOUT: "5000",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-tenant=shop",
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: "x-tenant=metrics",
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf",
    });
    // The timeout never exceeds the interval (the reader refuses that).
    expect(settings.metrics).to.deep.include({ exportIntervalMs: 1000, exportTimeoutMs: 1000 });
    expect(settings.metrics?.headers).to.deep.equal({ authorization: "Bearer abc", "x-tenant": "metrics" });
    expect(settings.traces?.headers).to.deep.equal({ authorization: "Bearer abc", "x-tenant": "shop" });
    expect(
      problemsOf({
        OTEL_METRIC_EXPORT_INTERVAL: "0",
        OTEL_METRIC_EXPORT_TIMEOUT: "1.5s",
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "collector:4318",
      }),
    ).to.deep.equal([
      'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT must use http: or https:, got "collector:"',
      'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL must be http/protobuf (the only OTLP protocol supported), got "grpc"',
      'OTEL_METRIC_EXPORT_INTERVAL must be a positive whole number of milliseconds, got "0"',
      'OTEL_METRIC_EXPORT_TIMEOUT must be a positive whole number of milliseconds, got "1.5s"',
    ]);
  });

  it("reads the sampler, its ratio, headers, resource attributes and the service name", () => {
    const settings = read({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-tenant=shop",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=staging,service.version=9.9",
      OTEL_SERVICE_NAME: "orders-eu",
    });
    expect(settings.traces?.sampler).to.equal("parentbased_traceidratio");
    expect(settings.traces?.samplerRatio).to.equal(0.1);
    expect(settings.traces?.headers).to.deep.equal({ authorization: "Bearer abc", "x-tenant": "shop" });
    expect(settings.resourceAttributes).to.deep.equal({
      "deployment.environment.name": "staging",
      "service.version": "9.9",
    });
    expect(settings.serviceName).to.equal("orders-eu");
    expect(read({ OTEL_RESOURCE_ATTRIBUTES: "service.name=from-resource" }).serviceName).to.equal(
      "from-resource",
    );
  });

  it("reads how spans are batched from OTEL_BSP_*, and refuses a batch larger than the queue", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(
      read({
        ...endpoint,
        OTEL_BSP_SCHEDULE_DELAY: "1000",
        OTEL_BSP_EXPORT_TIMEOUT: "2000",
        OTEL_BSP_MAX_QUEUE_SIZE: "8192",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1024",
      }).traces?.batch,
    ).to.deep.equal({
      scheduleDelayMs: 1000,
      exportTimeoutMs: 2000,
      maxQueueSize: 8192,
      maxExportBatchSize: 1024,
    });
    expect(read({ ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: "100" }).traces?.batch.maxExportBatchSize).to.equal(
      100,
    );
    expect(
      problemsOf({
        ...endpoint,
        OTEL_BSP_SCHEDULE_DELAY: "1s",
        OTEL_BSP_EXPORT_TIMEOUT: "0",
        OTEL_BSP_MAX_QUEUE_SIZE: "100",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "512",
      }),
    ).to.deep.equal([
      "OTEL_BSP_MAX_EXPORT_BATCH_SIZE (512) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (100)",
      'OTEL_BSP_SCHEDULE_DELAY must be a positive whole number of milliseconds, got "1s"',
      'OTEL_BSP_EXPORT_TIMEOUT must be a positive whole number of milliseconds, got "0"',
    ]);
    expect(problemsOf({ ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: "-5" })).to.deep.equal([
      'OTEL_BSP_MAX_QUEUE_SIZE must be a positive whole number, got "-5"',
    ]);
  });

  it("reports every bad variable at once, each by name", () => {
    const problems = problemsOf({
      OTEL_SDK_DISABLED: "yes",
      OTEL_TRACES_EXPORTER: "zipkin",
      OTEL_METRICS_EXPORTER: "statsd",
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization",
      OTEL_TRACES_SAMPLER: "traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "1.5",
      OTEL_RESOURCE_ATTRIBUTES: "=nameless",
    });
    expect(problems).to.deep.equal([
      'OTEL_SDK_DISABLED must be true or false, got "yes"',
      'OTEL_TRACES_EXPORTER must be one of otlp, none, got "zipkin"',
      'OTEL_METRICS_EXPORTER must be one of otlp, none, got "statsd"',
      'OTEL_EXPORTER_OTLP_ENDPOINT must use http: or https:, got "collector:"',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf (the only OTLP protocol supported), got "grpc"',
      "OTEL_EXPORTER_OTLP_HEADERS must be a list of key=value pairs separated by commas",
      'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "1.5"',
      "OTEL_RESOURCE_ATTRIBUTES must be a list of key=value pairs separated by commas",
    ]);
    expect(problemsOf({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).to.deep.equal([
      "OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on, " +
        'parentbased_always_off, parentbased_traceidratio, got "jaeger_remote"',
    ]);
    expect(
      problemsOf({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "-1" }),
    ).to.have.length(1);
  });
});
