/**
 * `npm run envoy:config [-- flags]`: renders the Envoy configuration of the REST edge from the
 * contract, and writes the descriptor set its transcoder loads.
 *
 *   --listen HOST:PORT          REST listener                      (0.0.0.0:8080)
 *   --admin HOST:PORT           admin interface, loopback only     (127.0.0.1:9901)
 *   --upstream NAME=HOST:PORT   a deployed service; repeat per service. Without any, the
 *                               services deployed today at NAME:9090 (Kubernetes short names)
 *   --descriptor PATH           where Envoy reads the descriptor set   (/etc/envoy/contract.binpb)
 *   --jwks PATH                 where Envoy reads the JWKS             (/etc/envoy/secrets/jwks.json)
 *   --edge-credentials DIR      where Envoy reads its credential for each service, a file named
 *                               after it                           (/etc/envoy/secrets/edge-credentials)
 *   --otlp-endpoint URL         trace every request into this OTLP/HTTP collector, given as
 *                               OTEL_EXPORTER_OTLP_ENDPOINT is (http://HOST:PORT); no tracing without it
 *   --otlp-sample-percent N     the share of requests that start a sampled trace (100), as the
 *                               services' OTEL_TRACES_SAMPLER_ARG × 100
 *   --out PATH                  the configuration file to write, "-" for stdout (.build/envoy/envoy.yaml)
 *   --descriptor-out PATH       the descriptor set file to write       (.build/envoy/contract.binpb)
 *
 * With no flags it also writes the Helm chart's files: its one copy of the configuration
 * (the tracer's lines marked), the descriptor set and the service catalog (helm/files,
 * chart-files.ts), which are committed so that `helm install ./helm` works on a clone.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildDescriptorSet, loadContract } from "../../scripts/codegen/contract-descriptors.js";
import { writeChartFiles, chartFilesDir } from "./chart-files.js";
import { renderEnvoyYaml } from "./envoy-config.js";
import { otlpExportOf } from "./tracing.js";
import {
  defaultEnvoyOptions,
  EnvoyOptionsError,
  parseHostPort,
  type EnvoyOptions,
  type HostPort,
} from "./envoy-options.js";

const repoRoot = join(import.meta.dirname, "..", "..");

function optionsFrom(argv: readonly string[]): { options: EnvoyOptions; out: string; descriptorOut: string } {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      listen: { type: "string" },
      admin: { type: "string" },
      upstream: { type: "string", multiple: true },
      descriptor: { type: "string" },
      jwks: { type: "string" },
      "edge-credentials": { type: "string" },
      "otlp-endpoint": { type: "string" },
      "otlp-sample-percent": { type: "string" },
      out: { type: "string" },
      "descriptor-out": { type: "string" },
    },
    strict: true,
  });
  let upstreams: ReadonlyMap<string, readonly HostPort[]> = defaultEnvoyOptions.upstreams;
  if (values.upstream !== undefined) {
    // Repeating a name adds a replica's address to that service.
    const given = new Map<string, HostPort[]>();
    for (const entry of values.upstream) {
      const at = entry.indexOf("=");
      if (at <= 0) throw new EnvoyOptionsError(`--upstream must be NAME=HOST:PORT, got "${entry}"`);
      const name = entry.slice(0, at);
      const endpoints = given.get(name) ?? [];
      endpoints.push(parseHostPort(entry.slice(at + 1), `--upstream ${name}`));
      given.set(name, endpoints);
    }
    upstreams = given;
  }
  const options: EnvoyOptions = {
    listen:
      values.listen === undefined ? defaultEnvoyOptions.listen : parseHostPort(values.listen, "--listen"),
    admin: values.admin === undefined ? defaultEnvoyOptions.admin : parseHostPort(values.admin, "--admin"),
    upstreams,
    descriptorPath: values.descriptor ?? defaultEnvoyOptions.descriptorPath,
    jwksPath: values.jwks ?? defaultEnvoyOptions.jwksPath,
    edgeCredentialsDir: values["edge-credentials"] ?? defaultEnvoyOptions.edgeCredentialsDir,
    otlp:
      values["otlp-endpoint"] === undefined
        ? undefined
        : otlpExportOf(values["otlp-endpoint"], samplePercentOf(values["otlp-sample-percent"])),
  };
  return {
    options,
    out: values.out ?? join(repoRoot, ".build", "envoy", "envoy.yaml"),
    descriptorOut: resolve(values["descriptor-out"] ?? join(repoRoot, ".build", "envoy", "contract.binpb")),
  };
}

async function main(): Promise<void> {
  const { options, out, descriptorOut } = optionsFrom(process.argv.slice(2));
  const contract = loadContract(await buildDescriptorSet(repoRoot));
  const yaml = renderEnvoyYaml(contract, options);
  await mkdir(dirname(descriptorOut), { recursive: true });
  await writeFile(descriptorOut, contract.descriptorSet);
  if (out === "-") {
    process.stdout.write(yaml);
  } else {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, yaml);
    process.stderr.write(`wrote ${out} and ${descriptorOut}\n`);
  }
  if (process.argv.length === 2) {
    await writeChartFiles(contract);
    process.stderr.write(`wrote the chart's files in ${chartFilesDir}\n`);
  }
}

main().catch((error: unknown) => {
  const known = error instanceof EnvoyOptionsError || (error instanceof TypeError && "code" in error);
  process.stderr.write(
    `envoy:config: ${error instanceof Error ? (known ? error.message : error.stack) : String(error)}\n`,
  );
  process.exitCode = 2;
});

function samplePercentOf(value: string | undefined): number {
  if (value === undefined) return 100;
  const percent = Number(value);
  if (value.trim() === "" || !Number.isFinite(percent) || percent < 0 || percent > 100) {
    throw new EnvoyOptionsError(`--otlp-sample-percent must be a number from 0 to 100, got "${value}"`);
  }
  return percent;
}
