/**
 * Reading the Prometheus text format (version 0.0.4) that Jaeger's `prometheus` exporter serves
 * at its metrics URL: one sample per line, `name{label="value",…} value`, comments skipped.
 * Enough for tests that check what the services exported; label values are unescaped.
 */
export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const samplePattern = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = samplePattern.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? "").matchAll(labelPattern)) {
      labels[key ?? ""] = (raw ?? "").replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** The samples at `metricsUrl` now. */
export async function scrapePrometheus(metricsUrl: string): Promise<PrometheusSample[]> {
  const response = await fetch(metricsUrl);
  if (response.status !== 200) throw new Error(`${metricsUrl} answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** The sum of the samples named `name` whose labels include `labels` (over every instance). */
export function sumOf(
  samples: readonly PrometheusSample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}
