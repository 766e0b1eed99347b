/**
 * Envoy's own CPU per request, before and after a change of its configuration, side by side in
 * one run: the chart's configuration (helm/files/envoy.yaml) as committed at a baseline
 * revision and as it is in the working tree, each made to listen on loopback and to send every
 * service's routes to the fixed upstream (fixed-product-upstream.ts), which answers at once.
 * Both pass through the same rewriting, so they differ only in what the generator made of
 * them. Two requests: the catalog read (`GET /api/products/{id}`, public) and an order
 * (`POST /api/orders` with a JSON body and a bearer token). Rounds alternate the two
 * configurations, so that the machine's drift falls on both; the median of the rounds is shown.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SignJWT } from "jose";
import { parse, stringify } from "yaml";
import { writeEnvoySecrets } from "../../envoy/src/envoy-secrets.js";
import { routedServices } from "../../envoy/src/envoy-options.js";
import { ensureEnvoy } from "../infra/envoy.js";
import { freePorts, runWhileStdinOpen, superviseChild, waitUntil } from "../infra/processes.js";
import { startChildServer, type ChildServer } from "./child-server.js";
import { measure, processesCpu, type LoadOptions, type LoadResult } from "./load.js";

const repoRoot = join(import.meta.dirname, "..", "..");
const chartConfig = "helm/files/envoy.yaml";
const chartDescriptor = "helm/files/contract.binpb";

export interface EnvoyCostOptions {
  /** The revision whose configuration is "before" (a commit, tag or branch of this repository). */
  readonly baseline: string;
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
}

interface Secrets {
  readonly jwtSecret: string;
  readonly edgeSecret: string;
}

/** The file at `revision`, or undefined when this clone does not have it. */
function fileAt(revision: string, path: string): Buffer | undefined {
  try {
    return execFileSync("git", ["show", `${revision}:${path}`], { cwd: repoRoot, maxBuffer: 64 << 20 });
  } catch {
    return undefined;
  }
}

type Yaml = Record<string, unknown>;
const asObject = (value: unknown): Yaml => value as Yaml;
const asList = (value: unknown): Yaml[] => value as Yaml[];

/**
 * The chart's configuration made to run here: untraced, no origin allowed, listening on
 * the given ports, every cluster at the fixed upstream, files in `dir`.
 */
function loopbackConfig(
  chartYaml: string,
  ports: { listener: number; admin: number },
  upstreamPort: number,
  dir: string,
): string {
  const text = chartYaml
    .replace(/^#traced#.*\n/gm, "")
    .replaceAll("__FULLNAME__", "bench")
    .replaceAll("__CORS_ALLOWED_ORIGINS__", "[]")
    .replaceAll("__CORS_ALLOWED_HEADERS__", "")
    .replaceAll("__CORS_MAX_AGE__", '"600"');
  const config = parse(text) as Yaml;
  const address = (at: number): Yaml => ({ socket_address: { address: "127.0.0.1", port_value: at } });
  config["admin"] = { address: address(ports.admin) };
  const resources = asObject(config["static_resources"]);
  const [listener] = asList(resources["listeners"]);
  if (listener === undefined) throw new Error(`${chartConfig} has no listener`);
  listener["address"] = address(ports.listener);
  for (const cluster of asList(resources["clusters"])) {
    cluster["type"] = "STATIC";
    const load = asObject(cluster["load_assignment"]);
    load["endpoints"] = [{ lb_endpoints: [{ endpoint: { address: address(upstreamPort) } }] }];
  }
  // Files: the descriptor set and the two secrets, wherever the chart mounts them.
  return stringify(config, { lineWidth: 0, aliasDuplicateObjects: false })
    .replaceAll("/etc/envoy/contract.binpb", join(dir, "contract.binpb"))
    .replaceAll("/etc/envoy/secrets/", `${join(dir, "secrets")}/`);
}

interface RunningEnvoy {
  readonly baseUrl: string;
  readonly pid: number;
  stop(): Promise<void>;
}

async function startEnvoy(
  chartYaml: string,
  descriptor: Buffer,
  upstream: ChildServer,
  secrets: Secrets,
): Promise<RunningEnvoy> {
  const dir = await mkdtemp(join(tmpdir(), "envoy-cost-"));
  await mkdir(join(dir, "secrets"), { recursive: true });
  await writeFile(join(dir, "contract.binpb"), descriptor);
  await writeEnvoySecrets(join(dir, "secrets"), secrets, routedServices);
  // A baseline from before per-service credentials (ADR 0106) reads one file for every service.
  await writeFile(join(dir, "secrets", "edge-credential"), secrets.edgeSecret, { mode: 0o600 });
  const ports = await freePorts(["listener", "admin"]);
  const configPath = join(dir, "envoy.yaml");
  await writeFile(configPath, loopbackConfig(chartYaml, ports, Number(new URL(upstream.url).port), dir));
  const child = spawn(
    runWhileStdinOpen,
    [
      await ensureEnvoy(),
      "-c",
      configPath,
      "--disable-hot-restart",
      "--log-level",
      "error",
      "--concurrency",
      "1",
    ],
    { stdio: ["pipe", "ignore", "inherit"] },
  );
  const supervised = superviseChild(child, 5_000);
  const stop = async (): Promise<void> => {
    await supervised.stop();
    await rm(dir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${ports.listener}`;
  // Ready once the catalog read answers 200 (health checks of the upstream have passed).
  const ready = await waitUntil(
    async () => (await fetch(`${baseUrl}/api/products/any`).catch(() => undefined))?.status === 200,
    { timeoutMs: 30_000, intervalMs: 100, abort: supervised.exited },
  );
  if (!ready || child.pid === undefined) {
    await stop();
    throw new Error("the Envoy of the cost bench did not serve within 30 s");
  }
  return { baseUrl, pid: child.pid, stop };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export async function benchEnvoyCost(options: EnvoyCostOptions): Promise<string[]> {
  const baselineYaml = fileAt(options.baseline, chartConfig);
  const baselineDescriptor = fileAt(options.baseline, chartDescriptor);
  if (baselineYaml === undefined || baselineDescriptor === undefined) {
    return [`  (skipped: this clone has no ${chartConfig} at ${options.baseline}; set BENCH_ENVOY_BASELINE)`];
  }
  const secrets: Secrets = { jwtSecret: "b".repeat(64), edgeSecret: "e".repeat(32) };
  const token = await new SignJWT({ role: "CUSTOMER", uid: 1 })
    .setProtectedHeader({ alg: "HS512" })
    .setSubject("bench@bench.test")
    .setExpirationTime("1h")
    .sign(Buffer.from(secrets.jwtSecret, "utf8"));
  const configs = [
    {
      label: `before (${options.baseline})`,
      yaml: baselineYaml.toString("utf8"),
      descriptor: baselineDescriptor,
    },
    {
      label: "after (working tree)",
      yaml: await readFile(join(repoRoot, chartConfig), "utf8"),
      descriptor: await readFile(join(repoRoot, chartDescriptor)),
    },
  ];
  const requests: { label: string; load: (baseUrl: string) => LoadOptions }[] = [
    {
      label: "catalog read  GET /api/products/{id}",
      load: (baseUrl) => ({ url: `${baseUrl}/api/products/any` }),
    },
    {
      label: "order         POST /api/orders",
      load: (baseUrl) => ({
        url: `${baseUrl}/api/orders`,
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ items: [{ productId: "any", quantity: 2 }] }),
      }),
    },
  ];
  const cpu = new Map<string, number[]>();
  const upstream = await startChildServer("fixed-product-upstream.ts");
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const config of configs) {
        const envoy = await startEnvoy(config.yaml, config.descriptor, upstream, secrets);
        try {
          for (const request of requests) {
            const result: LoadResult = await measure({
              ...request.load(envoy.baseUrl),
              connections: options.connections,
              seconds: options.seconds,
              cpuTime: processesCpu([envoy.pid]),
            });
            if (result.non2xx > 0 || result.errors > 0) {
              throw new Error(
                `${config.label} ${request.label}: ${result.non2xx} non-2xx, ${result.errors} errors`,
              );
            }
            const key = `${request.label}|${config.label}`;
            cpu.set(key, [...(cpu.get(key) ?? []), result.cpuMicrosPerRequest ?? Number.NaN]);
          }
        } finally {
          await envoy.stop();
        }
      }
    }
  } finally {
    await upstream.stop();
  }
  const lines = [
    `  Envoy's CPU per request in front of the fixed upstream, µs (median of ${options.rounds} rounds)`,
  ];
  for (const request of requests) {
    const [before, after] = configs.map((config) =>
      median(cpu.get(`${request.label}|${config.label}`) ?? []),
    );
    const change =
      before === undefined || after === undefined
        ? ""
        : `${(((after - before) / before) * 100).toFixed(0)} %`;
    lines.push(
      `  ${request.label.padEnd(38)} ${configs[0]?.label ?? ""} ${before?.toFixed(1) ?? "?"}   ${configs[1]?.label ?? ""} ${after?.toFixed(1) ?? "?"}   ${change}`,
    );
  }
  return lines;
}
