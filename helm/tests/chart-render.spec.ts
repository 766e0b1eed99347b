/**
 * The chart rendered with each profile (default, dev, production): helm lint --strict, every
 * manifest valid under kubeconform -strict for Kubernetes 1.37, values.schema.json refusing bad
 * values, every pod hardened, NetworkPolicies allowing exactly the flows the service catalog
 * implies, and each service wired exactly as the catalog says.
 */
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { deployableServices, type DeployableService } from "../../scripts/cluster/service-catalog.js";
import { jwksOf } from "../../envoy/src/envoy-secrets.js";
import { edgeCredential, serviceTrustEnvironment } from "@commerce/runtime/identity";
import { kafkaVersion } from "../../scripts/infra/kafka-runtime.js";
import { trustSecretData } from "../../scripts/k8s/chart/trust-secret.js";
import { ensureHelm } from "../../scripts/k8s/helm.js";
import { ensureKubeconform, type Kubeconform } from "../../scripts/k8s/kubeconform.js";
import { runTool } from "../../scripts/k8s/run-tool.js";
import {
  byKind,
  chartDir,
  componentOf,
  helmTemplate,
  parseManifests,
  profileNames,
  profileArgs,
  profileValues,
  renderChart,
  valueFileArgs,
  type ChartProfile,
  type Manifest,
} from "./chart.js";
import { analysePolicies, expectedFlows, type FlowValues } from "./network-flows.js";
import { podSecurityProblems, podSpecs } from "./pod-security.js";

const release = "shop";

interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } };
}

interface ContainerSpec {
  readonly env?: readonly EnvVar[];
  readonly image: string;
}

function named(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
}

function containerOf(deployment: Manifest): ContainerSpec {
  const spec = deployment.spec as { template: { spec: { containers: ContainerSpec[] } } };
  const container = spec.template.spec.containers[0];
  if (container === undefined) throw new Error(`${deployment.metadata.name} has no container`);
  return container;
}

/** What every service process reads (ADR 0017), as the chart sets it. */
const commonSettings = [
  "HOST",
  "PORT",
  "DATA_DIR",
  "LOG_LEVEL",
  "MONGODB_URL",
  "KAFKA_BROKERS",
  "KAFKA_PARTITIONS",
];
/** All the public site (the `web` deployable) is given: no store, no Kafka, no secret. */
const siteSettings = ["HOST", "PORT", "LOG_LEVEL"];
/**
 * Owned settings the chart leaves out while their value is empty: the default profile of these
 * tests chooses the sandbox (ADR 0117), so it has no gateway.
 */
const optionalSettings = ["PAYMENT_GATEWAY_URL", "PAYMENT_KEY_ID"];

describe("the Helm chart rendered per profile", function () {
  // A cold cache builds helm and kubeconform first (minutes); warm, seconds.
  this.timeout(20 * 60_000);
  let helm: string;
  let kubeconform: Kubeconform;
  const rendered = new Map<ChartProfile, Manifest[]>();
  const renderedText = new Map<ChartProfile, string>();
  const manifestsOf = (profile: ChartProfile): Manifest[] => rendered.get(profile) ?? [];
  let scratch: string;

  before(async () => {
    helm = await ensureHelm();
    kubeconform = await ensureKubeconform();
    scratch = await mkdtemp(join(tmpdir(), "chart-render-"));
    for (const profile of profileNames) {
      const result = await helmTemplate(helm, release, profile);
      expect(result.status, result.stderr).to.equal(0);
      renderedText.set(profile, result.stdout);
      rendered.set(profile, parseManifests(result.stdout));
    }
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  for (const profile of profileNames) {
    describe(`profile ${profile}`, () => {
      it("passes helm lint --strict", async () => {
        const result = await runTool(helm, ["lint", "--strict", chartDir, ...profileArgs(profile)]);
        expect(result.status, result.stdout + result.stderr).to.equal(0);
        expect(result.stdout).to.include("1 chart(s) linted, 0 chart(s) failed");
        expect(result.stdout).to.not.match(/\[(WARNING|ERROR)\]/);
      });

      it("renders only manifests that kubeconform -strict accepts for Kubernetes 1.37, the test hook included", async () => {
        const result = await runTool(kubeconform.binary, kubeconform.args, {
          input: renderedText.get(profile) ?? "",
        });
        expect(result.status, result.stdout).to.equal(0);
        const count = manifestsOf(profile).length;
        expect(result.stdout).to.include(`Valid: ${count}, Invalid: 0, Errors: 0, Skipped: 0`);
        expect(
          byKind(manifestsOf(profile), "Pod").map((pod) => pod.metadata.annotations?.["helm.sh/hook"]),
        ).to.deep.equal(["test"]);
      });

      it("hardens every pod: non-root, read-only root, no escalation, no capability, seccomp, limits, no token", () => {
        expect(podSpecs(manifestsOf(profile)).size).to.be.greaterThan(deployableServices.length);
        expect(podSecurityProblems(manifestsOf(profile))).to.deep.equal([]);
      });

      it("denies every pod by default and allows exactly the flows the service catalog implies", async () => {
        const analysis = analysePolicies(manifestsOf(profile));
        expect(analysis.undenied).to.deep.equal([]);
        const values = (await profileValues(profile)) as unknown as FlowValues;
        expect(analysis.flows).to.deep.equal(expectedFlows(deployableServices, values));
      });
    });
  }

  /** The env of the Payment Deployment, by name, as rendered for `profile`. */
  const paymentEnv = (profile: ChartProfile): Record<string, string | undefined> =>
    Object.fromEntries(
      (containerOf(named(manifestsOf(profile), "Deployment", `${release}-payment`)).env ?? []).map(
        (variable) => [variable.name, variable.value],
      ),
    );

  const noGateway =
    "no payment gateway is chosen: set payment.gatewayUrl and payment.keyId (a Razorpay-compatible gateway), or payment.sandbox=true (the sandbox gateway, which takes no money: development and tests only)";

  it("refuses to render its default values, and the production profile, until a gateway or the sandbox is chosen", async () => {
    for (const [profile, choices] of [
      ["default", ["--set", "admin.email=ops@shop.test"]],
      ["production", []],
    ] as const) {
      const result = await runTool(helm, [
        "template",
        release,
        chartDir,
        ...valueFileArgs(profile),
        ...choices,
      ]);
      expect(result.status, profile).to.not.equal(0);
      expect(result.stderr, profile).to.include(noGateway);
      expect(result.stdout, profile).to.equal("");
    }
  });

  it("refuses to render without the admin's email (there is no default), and a gateway with the sandbox", async () => {
    const withoutEmail = await runTool(helm, [
      "template",
      release,
      chartDir,
      "--set",
      "payment.sandbox=true",
    ]);
    expect(withoutEmail.status).to.not.equal(0);
    expect(withoutEmail.stderr).to.include(
      "admin.email is required: the email of the ADMIN account the chart creates (its password is secrets.admin); there is no default",
    );
    const both = await helmTemplate(helm, release, "production", ["--set", "payment.sandbox=true"]);
    expect(both.status).to.not.equal(0);
    expect(both.stderr).to.include(
      "payment.gatewayUrl and payment.sandbox=true exclude each other: payments go to one gateway",
    );
    const noKey = await runTool(helm, [
      "template",
      release,
      chartDir,
      ...valueFileArgs("production"),
      "--set",
      "payment.gatewayUrl=https://api.gateway.example",
    ]);
    expect(noKey.status).to.not.equal(0);
    expect(noKey.stderr).to.include("payment.keyId is required with payment.gatewayUrl");
  });

  it("runs the sandbox where it is chosen (the dev profile sets it) and the operator's gateway otherwise", () => {
    expect(paymentEnv("dev")).to.include({ PAYMENT_SANDBOX: "true" });
    expect(paymentEnv("dev")).to.not.have.any.keys("PAYMENT_GATEWAY_URL", "PAYMENT_KEY_ID");
    expect(paymentEnv("default")).to.include({ PAYMENT_SANDBOX: "true" });
    expect(paymentEnv("production")).to.include({
      PAYMENT_GATEWAY_URL: "https://api.gateway.example",
      PAYMENT_KEY_ID: "rzp_live_Hq4Jd8Tn2wLp0Z",
    });
    expect(paymentEnv("production")).to.not.have.any.keys("PAYMENT_SANDBOX");
    const admin = (profile: ChartProfile) =>
      containerOf(named(manifestsOf(profile), "Deployment", `${release}-auth`)).env?.find(
        (variable) => variable.name === "ADMIN_EMAIL",
      )?.value;
    expect([admin("dev"), admin("production")]).to.deep.equal(["admin@commerce.local", "admin@shop.example"]);
    // Only the Payment pods may reach the gateway, and only when there is one.
    const gatewayEgress = (profile: ChartProfile) =>
      analysePolicies(manifestsOf(profile)).flows.filter((flow) => flow.endsWith("anywhere:443/TCP"));
    expect(gatewayEgress("production")).to.deep.equal(["egress payment -> anywhere:443/TCP"]);
    expect(gatewayEgress("dev")).to.deep.equal([]);
  });

  it("runs the dev profile's Kafka from the official image of the version our tests run, in KRaft mode", async () => {
    const kafka = containerOf(named(manifestsOf("dev"), "Deployment", `${release}-kafka`));
    expect(kafka.image).to.equal(`apache/kafka:${await kafkaVersion()}`);
    const env = Object.fromEntries((kafka.env ?? []).map((variable) => [variable.name, variable.value]));
    expect(env).to.include({
      KAFKA_PROCESS_ROLES: "broker,controller",
      KAFKA_CONTROLLER_QUORUM_VOTERS: "1@127.0.0.1:9093",
    });
    // Kafka 4 has no ZooKeeper mode and no message format setting (ADR 0120).
    expect(Object.keys(env).filter((name) => /ZOOKEEPER|MESSAGE_FORMAT/.test(name))).to.deep.equal([]);
  });

  it("finds a pod that may run as root, lacks limits or mounts a token (the check can fail)", () => {
    const deployment = named(manifestsOf("default"), "Deployment", `${release}-order`);
    const weakened = structuredClone(deployment);
    const pod = (weakened.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    pod["automountServiceAccountToken"] = true;
    pod["securityContext"] = {};
    pod["containers"] = [{ name: "order", securityContext: { readOnlyRootFilesystem: true }, resources: {} }];
    const problems = podSecurityProblems([weakened]);
    expect(problems).to.include.members([
      `Deployment ${release}-order: mounts a service-account token`,
      `Deployment ${release}-order: container order may run as root (runAsNonRoot is not true)`,
      `Deployment ${release}-order: container order has no memory limits`,
      `Deployment ${release}-order: container order allows privilege escalation`,
    ]);
  });

  it("finds a flow the catalog does not list, and a selector that could match another release (the check can fail)", () => {
    const manifests = manifestsOf("default");
    const policy = named(manifests, "NetworkPolicy", `${release}-notification`);
    const widened = structuredClone(policy);
    const payment = {
      "app.kubernetes.io/name": "commerce-platform",
      "app.kubernetes.io/instance": release,
      "app.kubernetes.io/component": "payment",
    };
    (widened.spec as { egress: unknown[] }).egress.push(
      { to: [{ podSelector: { matchLabels: payment } }], ports: [{ port: 9090, protocol: "TCP" }] },
      {
        to: [{ podSelector: { matchLabels: { "app.kubernetes.io/component": "order" } } }],
        ports: [{ port: 9090, protocol: "TCP" }],
      },
    );
    const flows = analysePolicies(manifests.map((m) => (m === policy ? widened : m))).flows;
    expect(flows).to.include("egress notification -> payment:9090/TCP");
    expect(flows).to.include('egress notification -> pods {"app.kubernetes.io/component":"order"}:9090/TCP');
  });

  it("gives each service only its own settings, the common ones and its peers' Service addresses, and the public site only where to listen", () => {
    const manifests = manifestsOf("default");
    for (const service of deployableServices) {
      const container = containerOf(named(manifests, "Deployment", `${release}-${service.name}`));
      const names = (container.env ?? []).map((variable) => variable.name);
      const common = service.kind === "site" ? siteSettings : commonSettings;
      // Its own credentials (ADR 0105), the names of the test below.
      const trust = Object.keys(serviceTrustEnvironment(service.name, { edgeSecret: "e", peerSecret: "p" }));
      const expected = [...common, ...Object.keys(service.peers), ...service.owns, ...trust].filter(
        (name) => !optionalSettings.includes(name),
      );
      expect([...names].sort(), service.name).to.deep.equal([...expected].sort());
      for (const [variable, peer] of Object.entries(service.peers)) {
        const value = container.env?.find((entry) => entry.name === variable)?.value;
        expect(value).to.equal(`http://${release}-${String(peer)}:9090`);
        const peerService = named(manifests, "Service", `${release}-${String(peer)}`);
        expect((peerService.spec as { ports: { port: number }[] }).ports.map((p) => p.port)).to.deep.equal([
          9090,
        ]);
      }
      expect(container.image).to.equal(`commerce-platform/${service.name}:0.1.0`);
    }
    // The stream processor has no API and no caller: no Service.
    expect(byKind(manifests, "Service").map(componentOf)).to.not.include("analytics-processor");
  });

  it("runs the public site with no data volume, and does not roll it when a secret changes (it holds none)", () => {
    interface PodTemplate {
      readonly template: {
        readonly metadata: { readonly annotations?: Record<string, string> };
        readonly spec: { readonly volumes: readonly { readonly name: string }[] };
      };
    }
    const manifests = manifestsOf("default");
    const pod = (name: string) =>
      (named(manifests, "Deployment", `${release}-${name}`).spec as PodTemplate).template;
    expect(pod("web").spec.volumes.map((volume) => volume.name)).to.deep.equal(["tmp"]);
    expect(pod("web").metadata.annotations?.["checksum/secrets"]).to.equal(undefined);
    expect(pod("order").metadata.annotations?.["checksum/secrets"]).to.be.a("string");
  });

  it("probes each service on its gRPC port: start-up and readiness by gRPC health, liveness by /healthz", () => {
    interface Probe {
      readonly grpc?: { readonly port: number; readonly service?: string };
      readonly httpGet?: { readonly path: string; readonly port: string | number };
    }
    interface Probed {
      readonly startupProbe?: Probe;
      readonly readinessProbe?: Probe;
      readonly livenessProbe?: Probe;
      readonly ports?: readonly { readonly name: string; readonly containerPort: number }[];
    }
    for (const service of deployableServices) {
      const container = containerOf(
        named(manifestsOf("default"), "Deployment", `${release}-${service.name}`),
      ) as ContainerSpec & Probed;
      expect(container.ports, service.name).to.deep.equal([
        { name: "grpc", containerPort: 9090, protocol: "TCP" },
      ]);
      expect(container.startupProbe?.grpc, service.name).to.deep.equal({ port: 9090 });
      expect(container.readinessProbe?.grpc, service.name).to.deep.equal({ port: 9090 });
      expect(container.livenessProbe?.httpGet, service.name).to.deep.equal({
        path: "/healthz",
        port: "grpc",
      });
    }
  });

  it("points Envoy at the release's Services and rolls it on a change of its configuration", () => {
    const manifests = manifestsOf("default");
    const config = named(manifests, "ConfigMap", `${release}-envoy`);
    const envoyYaml = config.data?.["envoy.yaml"] ?? "";
    const descriptor = config.binaryData?.["contract.binpb"] ?? "";
    for (const service of deployableServices.filter(
      (s: DeployableService) => s.routed || s.kind === "site",
    )) {
      expect(envoyYaml).to.include(`address: ${release}-${service.name}\n`);
      named(manifests, "Service", `${release}-${service.name}`);
    }
    expect(envoyYaml).to.not.include("__FULLNAME__");
    const deployment = named(manifests, "Deployment", `${release}-envoy`);
    const annotations = (
      deployment.spec as { template: { metadata: { annotations: Record<string, string> } } }
    ).template.metadata.annotations;
    const checksum = createHash("sha256").update(`${envoyYaml}\n${descriptor}`).digest("hex");
    expect(annotations["checksum/config"]).to.equal(checksum);
  });

  it("derives each hop's credential as the runtime does, and gives each pod only its own: Envoy one per service, each service what it accepts and presents", async () => {
    const secrets = { edgeSecret: "e".repeat(40), peerSecret: "p".repeat(40) };
    const jwtSecret = "j".repeat(64);
    const manifests = await renderChart(helm, release, "default", [
      "--set",
      `secrets.trust.edgeSecret=${secrets.edgeSecret}`,
      "--set",
      `secrets.trust.peerSecret=${secrets.peerSecret}`,
      "--set",
      `secrets.jwt.jwtSecret=${jwtSecret}`,
    ]);
    const decoded = (name: string, key: string) => {
      const value = named(manifests, "Secret", name).data?.[key];
      if (value === undefined) throw new Error(`${name} has no key ${key}`);
      return Buffer.from(value, "base64").toString("utf8");
    };
    expect(JSON.parse(decoded(`${release}-jwt`, "jwks.json"))).to.deep.equal(JSON.parse(jwksOf(jwtSecret)));
    const trust = `${release}-trust`;
    // A caller list in a fixed order, whatever order the chart and the runtime list callers in.
    const sortedCallers = (env: Record<string, string>): Record<string, string> => {
      const callers = env["PEER_CALLERS_SHA256"];
      return callers === undefined
        ? env
        : { ...env, PEER_CALLERS_SHA256: callers.split(",").sort().join(",") };
    };
    const mountedKeys: string[] = [];
    for (const deployment of byKind(manifests, "Deployment").filter((d) => componentOf(d) !== "envoy")) {
      const name = componentOf(deployment);
      const fromTrust: Record<string, string> = {};
      for (const variable of containerOf(deployment).env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref?.name !== trust) continue;
        fromTrust[variable.name] = decoded(trust, ref.key);
        mountedKeys.push(ref.key);
      }
      // Exactly what the topology gives the same process from the same secrets: nothing else.
      expect(sortedCallers(fromTrust), name).to.deep.equal(
        sortedCallers(serviceTrustEnvironment(name, secrets)),
      );
    }
    const envoy = (
      named(manifests, "Deployment", `${release}-envoy`).spec as {
        template: {
          spec: {
            volumes: {
              projected?: { sources: { secret: { name: string; items: { key: string; path: string }[] } }[] };
            }[];
          };
        };
      }
    ).template.spec.volumes.flatMap((volume) => volume.projected?.sources ?? []);
    const envoyItems = envoy
      .filter((source) => source.secret.name === trust)
      .flatMap((source) => source.secret.items);
    const routed = deployableServices.filter((service) => service.routed).map((service) => service.name);
    expect(envoyItems.map((item) => item.path)).to.deep.equal(
      routed.map((service) => `edge-credentials/${service}`),
    );
    for (const [index, item] of envoyItems.entries()) {
      const service = routed[index] ?? "";
      expect(decoded(trust, item.key), item.key).to.equal(edgeCredential(secrets.edgeSecret, service));
      mountedKeys.push(item.key);
    }
    // The keys an operator's own Secret holds (npm run chart:trust-secret), and the two secrets.
    const chartData = Object.fromEntries(
      Object.keys(named(manifests, "Secret", trust).data ?? {}).map((key) => [key, decoded(trust, key)]),
    );
    expect(chartData).to.deep.equal({
      ...trustSecretData(secrets),
      EDGE_SECRET: secrets.edgeSecret,
      PEER_SECRET: secrets.peerSecret,
    });
    // The two secrets themselves reach no pod; each credential reaches only the one it is for.
    expect(mountedKeys).to.not.include.members(["EDGE_SECRET"]).and.not.include.members(["PEER_SECRET"]);
    expect(mountedKeys).to.deep.equal([...new Set(mountedKeys)]);
    expect([...mountedKeys, "EDGE_SECRET", "PEER_SECRET"].sort()).to.deep.equal(
      Object.keys(named(manifests, "Secret", trust).data ?? {}).sort(),
    );
  });

  it("uses existing Secrets by name and makes none of its own (production profile)", () => {
    const manifests = manifestsOf("production");
    expect(byKind(manifests, "Secret")).to.deep.equal([]);
    const auth = containerOf(named(manifests, "Deployment", `${release}-auth`));
    const refs = (auth.env ?? []).flatMap((variable) =>
      variable.valueFrom?.secretKeyRef === undefined ? [] : [variable.valueFrom.secretKeyRef.name],
    );
    expect([...new Set(refs)].sort()).to.deep.equal(["commerce-admin", "commerce-jwt", "commerce-trust"]);
  });

  it("omits replicas when the HPA scales a service, and sets them otherwise", () => {
    const hpaReplicas = (profile: ChartProfile) =>
      (named(manifestsOf(profile), "Deployment", `${release}-product`).spec as { replicas?: number })
        .replicas;
    expect(hpaReplicas("default")).to.equal(undefined);
    expect(byKind(manifestsOf("default"), "HorizontalPodAutoscaler")).to.have.length(
      deployableServices.length,
    );
    expect(hpaReplicas("dev")).to.equal(1);
    expect(byKind(manifestsOf("dev"), "HorizontalPodAutoscaler")).to.deep.equal([]);
  });

  it("names every object after its release, so two releases share a namespace", async () => {
    const other = await renderChart(helm, "other", "default");
    const names = (manifests: readonly Manifest[]) => manifests.map((m) => `${m.kind}/${m.metadata.name}`);
    const shared = names(other).filter((name) => names(manifestsOf("default")).includes(name));
    expect(shared).to.deep.equal([]);
  });

  const badValues: [string, string, RegExp][] = [
    ["a wrong type", "envoy:\n  replicas: two\n", /at '\/envoy\/replicas': got string, want integer/],
    [
      "an unknown key",
      "services:\n  auth:\n    replica: 2\n",
      /at '\/services\/auth': additional properties 'replica' not allowed/,
    ],
    ["a missing required value", "kafka:\n  brokers: null\n", /at '\/kafka': missing property 'brokers'/],
    [
      "a service the catalog does not have",
      "services:\n  inventory: {}\n",
      /additional properties 'inventory' not allowed/,
    ],
    [
      "an edge type Kubernetes would refuse",
      "envoy:\n  service:\n    type: NodePorts\n",
      /at '\/envoy\/service\/type'/,
    ],
    [
      "a CORS origin with a path",
      "envoy:\n  cors:\n    allowedOrigins: [https://shop.example.com/]\n",
      /at '\/envoy\/cors\/allowedOrigins\/0': 'https:\/\/shop.example.com\/' does not match pattern/,
    ],
    [
      "a CORS wildcard beside an origin",
      'envoy:\n  cors:\n    allowedOrigins: ["*", https://shop.example.com]\n',
      /at '\/envoy\/cors\/allowedOrigins': maxItems: got 2, want 1/,
    ],
  ];
  for (const [what, values, message] of badValues) {
    it(`refuses a values file with ${what}, saying where`, async () => {
      const file = join(scratch, `${what.replaceAll(" ", "-")}.yaml`);
      await writeFile(file, values);
      const result = await runTool(helm, ["template", release, chartDir, "--values", file]);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.include("values don't meet the specifications of the schema(s)");
      expect(result.stderr).to.match(message);
    });
  }
});
