/**
 * The chart's Envoy pod as Envoy itself sees it: the files its volumes mount (the ConfigMap's
 * configuration and descriptor set, the projected jwks.json and its credential for each service)
 * laid out under a scratch root exactly where the Deployment mounts them, and the Deployment's
 * own arguments, accepted by the Envoy binary our tests run (`--mode validate`). The image's tag
 * is the same version.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { ensureEnvoy, envoyVersion } from "../../scripts/infra/envoy.js";
import { ensureHelm } from "../../scripts/k8s/helm.js";
import { helmTemplate, renderChart, type Manifest } from "./chart.js";

const run = promisify(execFile);
const release = "shop";

interface Volume {
  readonly name: string;
  readonly configMap?: { readonly name: string };
  readonly projected?: {
    readonly sources: readonly {
      readonly secret: { readonly name: string; readonly items: readonly { key: string; path: string }[] };
    }[];
  };
  readonly emptyDir?: object;
}

interface EnvoyPod {
  readonly containers: readonly {
    readonly image: string;
    readonly command: readonly string[];
    readonly args: readonly string[];
    readonly volumeMounts: readonly { readonly name: string; readonly mountPath: string }[];
  }[];
  readonly volumes: readonly Volume[];
}

function named(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
}

/** Writes what each of the pod's volumes holds under `root` + its mount path. */
async function mountVolumes(manifests: readonly Manifest[], pod: EnvoyPod, root: string): Promise<void> {
  const container = pod.containers[0];
  if (container === undefined) throw new Error("no container");
  for (const mount of container.volumeMounts) {
    const volume = pod.volumes.find((v) => v.name === mount.name);
    const dir = join(root, mount.mountPath);
    await mkdir(dir, { recursive: true });
    if (volume?.configMap !== undefined) {
      const map = named(manifests, "ConfigMap", volume.configMap.name);
      for (const [key, text] of Object.entries(map.data ?? {})) await writeFile(join(dir, key), text);
      for (const [key, base64] of Object.entries(map.binaryData ?? {})) {
        await writeFile(join(dir, key), Buffer.from(base64, "base64"));
      }
    }
    for (const source of volume?.projected?.sources ?? []) {
      const secret = named(manifests, "Secret", source.secret.name);
      for (const item of source.secret.items) {
        await mkdir(dirname(join(dir, item.path)), { recursive: true });
        await writeFile(join(dir, item.path), Buffer.from(secret.data?.[item.key] ?? "", "base64"));
      }
    }
  }
}

describe("the chart's Envoy pod", function () {
  this.timeout(10 * 60_000);
  let scratch: string;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "chart-envoy-pod-"));
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it(`runs the official image at the version our tests run (${envoyVersion})`, async () => {
    const manifests = await renderChart(await ensureHelm(), release, "default");
    const pod = (named(manifests, "Deployment", `${release}-envoy`).spec as { template: { spec: EnvoyPod } })
      .template.spec;
    expect(pod.containers[0]?.image).to.equal(`envoyproxy/envoy:distroless-v${envoyVersion}`);
  });

  /** Lays out the rendered pod's volumes under a scratch root and runs `envoy --mode validate`. */
  async function validatePod(manifests: readonly Manifest[], name: string): Promise<string> {
    const pod = (named(manifests, "Deployment", `${release}-envoy`).spec as { template: { spec: EnvoyPod } })
      .template.spec;
    const root = join(scratch, name, "root");
    await mountVolumes(manifests, pod, root);
    const container = pod.containers[0];
    if (container === undefined) throw new Error("no container");
    // The configuration names absolute paths under /etc/envoy: point them into the scratch root.
    const configPath = container.args[container.args.indexOf("--config-path") + 1] ?? "";
    const config = await readFile(join(root, configPath), "utf8");
    expect(config).to.include("filename: /etc/envoy/secrets/jwks.json");
    expect(config).to.include("filename: /etc/envoy/secrets/edge-credentials/order");
    const rooted = join(scratch, name, "envoy.yaml");
    await writeFile(rooted, config.replaceAll("/etc/envoy/", `${join(root, "etc", "envoy")}/`));
    const args = container.args.map((arg) => (arg === configPath ? rooted : arg));
    const { stdout } = await run(await ensureEnvoy(), ["--mode", "validate", ...args]);
    expect(stdout).to.include(`configuration '${rooted}' OK`);
    return config;
  }

  it("is a configuration Envoy accepts, read from the files its volumes mount, with its own arguments", async () => {
    const config = await validatePod(await renderChart(await ensureHelm(), release, "default"), "untraced");
    expect(config).not.to.include("envoy.tracers.opentelemetry");
    // The tracer's lines of the one committed file are dropped, not left as comments.
    expect(config).not.to.include("#traced#");
    expect(config).not.to.include("opentelemetry_collector");
  });

  it("with otel.endpoint, traces otel.sampleRatio of the requests into that collector as commerce-edge, and Envoy accepts it", async () => {
    const manifests = await renderChart(await ensureHelm(), release, "default", [
      "--set",
      "otel.endpoint=http://otel-collector.observability:4318/",
      "--set-json",
      "otel.sampleRatio=0.1",
    ]);
    const config = await validatePod(manifests, "traced");
    expect(config).to.include("uri: http://otel-collector.observability:4318/v1/traces\n");
    expect(config).to.include("address: otel-collector.observability\n");
    expect(config).to.include("port_value: 4318\n");
    expect(config).to.include("service_name: commerce-edge\n");
    expect(config).to.match(/random_sampling:\n\s+value: 10\n/);
    // The services follow Envoy's decision, and sample at the same ratio what comes from elsewhere.
    const order = (
      named(manifests, "Deployment", `${release}-order`).spec as {
        template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
      }
    ).template.spec.containers[0]?.env;
    expect(order?.filter((e) => e.name.startsWith("OTEL_"))).to.deep.equal([
      { name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: "http://otel-collector.observability:4318/" },
      { name: "OTEL_TRACES_SAMPLER", value: "parentbased_traceidratio" },
      { name: "OTEL_TRACES_SAMPLER_ARG", value: "0.1" },
    ]);
    expect(config).not.to.include("__OTLP_");
    expect(config).not.to.include("#traced#");
  });

  it("with envoy.cors, lets the browser apps of those origins call the API, and Envoy accepts it", async () => {
    const manifests = await renderChart(await ensureHelm(), release, "default", [
      "--set-json",
      'envoy.cors.allowedOrigins=["https://shop.example.com","http://localhost:5173"]',
      "--set-json",
      'envoy.cors.allowedHeaders=["X-Request-Id","traceparent"]',
      "--set-json",
      "envoy.cors.maxAgeSeconds=3600",
    ]);
    const config = await validatePod(manifests, "cors");
    expect(config).to.include(
      'allow_origin_string_match: [{"exact":"https://shop.example.com"},{"exact":"http://localhost:5173"}]\n',
    );
    expect(config).to.include("allow_headers: authorization, content-type, x-request-id, traceparent\n");
    expect(config).to.include('max_age: "3600"\n');
    expect(config).not.to.include("__CORS_");
  });

  it("allows no origin by default, and Envoy accepts that too", async () => {
    const config = await validatePod(await renderChart(await ensureHelm(), release, "default"), "no-cors");
    expect(config).to.include("allow_origin_string_match: []\n");
    expect(config).to.include("allow_headers: authorization, content-type\n");
    expect(config).not.to.include("__CORS_");
  });

  it("refuses an otel.endpoint Envoy's tracer cannot reach in plain HTTP", async () => {
    const rendering = await helmTemplate(await ensureHelm(), release, "default", [
      "--set",
      "otel.endpoint=https://otel-collector.observability:4318",
    ]);
    expect(rendering.status).not.to.equal(0);
    expect(rendering.stderr).to.include("otel.endpoint must be an http:// URL");
  });
});
