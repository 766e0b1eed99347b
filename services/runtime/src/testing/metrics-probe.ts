/**
 * Metrics collected on demand in tests: `readerFor` is `startTelemetry`'s `metricReader` option,
 * a reader per service that exports nothing and answers `collect` with what its meter provider
 * holds now (cumulative, as the OTLP exporter sends it by default).
 */
import type { Attributes } from "@opentelemetry/api";
import { DataPointType, MetricReader, type MetricData } from "@opentelemetry/sdk-metrics";

/** One data point of a metric: its attributes and its value (a histogram's count and sum). */
export interface Point {
  readonly attributes: Attributes;
  readonly value: number | { readonly count: number; readonly sum: number | undefined };
}

/** What a test reads of one metric. */
export interface CollectedMetric {
  readonly name: string;
  readonly unit: string;
  readonly points: readonly Point[];
}

export interface MetricsProbe {
  readonly readerFor: (serviceName: string) => MetricReader;
  /** The metric `name` of the service `serviceName` (`commerce-<name>`) now; undefined if none. */
  metric(serviceName: string, name: string): Promise<CollectedMetric | undefined>;
}

class CollectingReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

export function createMetricsProbe(): MetricsProbe {
  const readers = new Map<string, MetricReader>();
  return {
    readerFor(serviceName) {
      const reader = new CollectingReader();
      readers.set(serviceName, reader);
      return reader;
    },
    async metric(serviceName, name) {
      const reader = readers.get(serviceName);
      if (reader === undefined) throw new Error(`no meter provider for ${serviceName}`);
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length > 0)
        throw new Error(`collecting ${serviceName}'s metrics failed`, { cause: errors[0] });
      const metric = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((candidate) => candidate.descriptor.name === name);
      return metric === undefined ? undefined : collected(metric);
    },
  };
}

function collected(metric: MetricData): CollectedMetric {
  const points: Point[] = [];
  if (metric.dataPointType === DataPointType.HISTOGRAM) {
    for (const { attributes, value } of metric.dataPoints) {
      points.push({ attributes, value: { count: value.count, sum: value.sum } });
    }
  } else if (metric.dataPointType !== DataPointType.EXPONENTIAL_HISTOGRAM) {
    for (const { attributes, value } of metric.dataPoints) points.push({ attributes, value });
  }
  return { name: metric.descriptor.name, unit: metric.descriptor.unit, points };
}
