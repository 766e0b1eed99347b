/**
 * The files the Helm chart (`helm/`) renders its Envoy and its services from, written by the
 * same generator as every Envoy the platform runs, so that the chart never holds a hand-written copy:
 *   helm/files/envoy.yaml      the edge's configuration, upstreams named as the chart names
 *                              its Services (`<release fullname>-<service>`, the fullname
 *                              left as a placeholder the chart fills in). It is the traced
 *                              configuration (tracing.ts) in which every line the untraced one
 *                              lacks starts with `#traced#`: a YAML comment, which the chart
 *                              drops, or turns back into the line when `otel.endpoint` is set,
 *                              filling in the collector's endpoint, host and port. So one file
 *                              holds both, and the chart never holds a second copy. The chart
 *                              fills in the CORS placeholders from `envoy.cors` (cors.ts);
 *   helm/files/contract.binpb  the descriptor set Envoy's transcoder loads (a ConfigMap's
 *                              binaryData);
 *   helm/files/services.json   the service catalog (scripts/cluster/service-catalog.ts): each
 *                              deployable's peers, owned settings, whether the edge routes its
 *                              API to it, and its kind (a service, or the public site, which
 *                              gets the site's paths and nothing of the platform), which the
 *                              chart's templates iterate over.
 * A test fails when the committed copies are stale (chart-files.spec.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deployableServices } from "../../scripts/cluster/service-catalog.js";
import type { Contract } from "../../scripts/codegen/contract-descriptors.js";
import { renderEnvoyYaml } from "./envoy-config.js";
import { defaultDeployments, defaultEnvoyOptions, type EnvoyOptions } from "./envoy-options.js";

export const chartFilesDir = join(import.meta.dirname, "..", "..", "helm", "files");

/** Stands for the release's fullname in upstream hosts; the chart replaces it. */
export const fullnamePlaceholder = "__FULLNAME__";

/** The gRPC port of every service's container and Service. */
export const chartServicePort = 9090;

/** Stand for parts of the chart's `otel.endpoint` in the traced configuration. */
export const otlpPlaceholders = {
  endpoint: "__OTLP_ENDPOINT__",
  host: "__OTLP_HOST__",
  port: "__OTLP_PORT__",
  samplePercent: "__OTLP_SAMPLE_PERCENT__",
} as const;

/**
 * Stand for the chart's `envoy.cors` values: the JSON list of the origins' string matchers
 * (`[{"exact":"https://shop.example.com"}]`, `[]` for none), `, <name>` per extra request
 * header, and the max age as a quoted number.
 */
export const corsPlaceholders = {
  allowedOrigins: "__CORS_ALLOWED_ORIGINS__",
  allowedHeaders: "__CORS_ALLOWED_HEADERS__",
  maxAgeSeconds: "__CORS_MAX_AGE__",
} as const;

/** In-cluster defaults (envoy/README.md) with the chart's release-prefixed Service names. */
export const chartEnvoyOptions: EnvoyOptions = {
  ...defaultEnvoyOptions,
  cors: corsPlaceholders,
  upstreams: new Map(
    defaultDeployments.map((name) => [
      name,
      [{ host: `${fullnamePlaceholder}-${name}`, port: chartServicePort }],
    ]),
  ),
};

/** Starts the lines of helm/files/envoy.yaml that only the traced configuration has. */
export const tracedLineMark = "#traced#";

/**
 * The traced configuration with the lines the untraced one lacks marked: removing the marked
 * lines gives the untraced configuration, unmarking them the traced one. Tracing only adds
 * (a runtime layer, the connection manager's tracer, the collector's cluster), so a walk
 * that keeps the untraced lines in order finds them all.
 */
export function markTracedLines(untraced: string, traced: string): string {
  const plain = untraced.split("\n");
  let next = 0;
  const lines = traced.split("\n").map((line) => {
    if (next < plain.length && line === plain[next]) {
      next += 1;
      return line;
    }
    return `${tracedLineMark}${line}`;
  });
  if (next !== plain.length) {
    throw new Error(
      `the traced Envoy configuration does not hold the untraced one (line ${next + 1} differs)`,
    );
  }
  return lines.join("\n");
}

/** File name → contents, as the chart's `files/` folder holds them. */
export function renderChartFiles(contract: Contract): Map<string, string | Uint8Array> {
  const catalog = {
    services: deployableServices.map(({ name, peers, owns, routed, kind }) => ({
      name,
      peers,
      owns,
      routed,
      kind,
    })),
  };
  return new Map<string, string | Uint8Array>([
    [
      "envoy.yaml",
      markTracedLines(
        renderEnvoyYaml(contract, chartEnvoyOptions),
        renderEnvoyYaml(contract, {
          ...chartEnvoyOptions,
          otlp: {
            tracesUrl: `${otlpPlaceholders.endpoint}/v1/traces`,
            address: { host: otlpPlaceholders.host, port: otlpPlaceholders.port },
            samplePercent: otlpPlaceholders.samplePercent,
          },
        }),
      ),
    ],
    ["contract.binpb", contract.descriptorSet],
    ["services.json", `${JSON.stringify(catalog, null, 2)}\n`],
  ]);
}

export async function writeChartFiles(contract: Contract, dir = chartFilesDir): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, contents] of renderChartFiles(contract)) await writeFile(join(dir, name), contents);
}
