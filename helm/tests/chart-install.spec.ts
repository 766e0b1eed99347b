/**
 * The chart on a real Kubernetes API (startControlPlane: kube-apiserver, etcd, controllers and
 * kwok fake nodes in three zones): installed with --wait until every Deployment is Ready, with
 * no server warning, printing how to reach the edge and log in; upgraded with changed values (the
 * change lands, Envoy rolls only when its secrets change, generated secrets are kept) and to a
 * chart with a regenerated Envoy configuration (Envoy rolls, the services do not); rolled back; a second release
 * (the dev profile, with its in-cluster dependencies) beside it in the same namespace; and
 * uninstalled without leaving anything of the release behind.
 */
import { appendFile, cp } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { expect } from "chai";
import { credentialSha256, edgeCredential } from "@commerce/runtime/identity";
import { deployableServices } from "../../scripts/cluster/service-catalog.js";
import { usePrivateControlPlane } from "../../scripts/k8s/control-plane-fixture.js";
import { kubeRequest } from "../../scripts/k8s/kube-api.js";
import { helmEnvironment, runTool, type ToolRun } from "../../scripts/k8s/run-tool.js";
import {
  chartDir,
  instanceLabel,
  parseManifests,
  profileArgs,
  type ChartProfile,
  type Manifest,
} from "./chart.js";

const namespace = "commerce";
const rotatedEdgeSecret = "rotated-edge-secret-".padEnd(40, "x");

interface DeploymentStatus {
  readonly metadata: { readonly name: string; readonly generation: number };
  readonly spec: {
    readonly replicas: number;
    readonly template: {
      readonly metadata: { readonly annotations?: Record<string, string> };
      readonly spec: {
        readonly containers: readonly { readonly env?: readonly { name: string; value?: string }[] }[];
      };
    };
  };
  readonly status: { readonly readyReplicas?: number; readonly observedGeneration?: number };
}

interface ObjectList<T> {
  readonly items: readonly T[];
}

/** The API path of a namespaced kind's collection. */
const collections: Readonly<Record<string, string>> = {
  ConfigMap: "/api/v1/namespaces/NS/configmaps",
  Secret: "/api/v1/namespaces/NS/secrets",
  Service: "/api/v1/namespaces/NS/services",
  ServiceAccount: "/api/v1/namespaces/NS/serviceaccounts",
  Pod: "/api/v1/namespaces/NS/pods",
  Deployment: "/apis/apps/v1/namespaces/NS/deployments",
  ReplicaSet: "/apis/apps/v1/namespaces/NS/replicasets",
  HorizontalPodAutoscaler: "/apis/autoscaling/v2/namespaces/NS/horizontalpodautoscalers",
  PodDisruptionBudget: "/apis/policy/v1/namespaces/NS/poddisruptionbudgets",
  NetworkPolicy: "/apis/networking.k8s.io/v1/namespaces/NS/networkpolicies",
  EndpointSlice: "/apis/discovery.k8s.io/v1/namespaces/NS/endpointslices",
};

describe("the Helm chart on a Kubernetes control plane", function () {
  // A cold cache builds the toolchain first (tens of minutes); warm, well under a minute.
  this.timeout(60 * 60_000);
  const { plane, helm, scratch } = usePrivateControlPlane({ prefix: "chart-install-spec-", nodes: 3 });

  const runHelm = (args: readonly string[]): Promise<ToolRun> =>
    runTool(helm(), [...args, "--kubeconfig", plane().kubeconfig, "--namespace", namespace], {
      env: helmEnvironment(join(scratch(), "helm")),
    });

  /** install or upgrade with --wait; fails on any output to stderr (a server warning). */
  const deploy = async (
    verb: "install" | "upgrade",
    release: string,
    profile: ChartProfile,
    sets: readonly string[] = [],
    chart = chartDir,
  ): Promise<string> => {
    const result = await runHelm([
      verb,
      release,
      chart,
      ...(verb === "install" ? ["--create-namespace"] : []),
      ...profileArgs(profile),
      ...sets.flatMap((set) => ["--set", set]),
      "--wait",
      "--timeout",
      "180s",
    ]);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.equal("");
    expect(result.stdout).to.match(/^STATUS: deployed$/m);
    return result.stdout;
  };

  const get = async <T>(path: string): Promise<T> => {
    const response = await kubeRequest(plane().access, "GET", path.replace("NS", namespace));
    expect(response.status, response.text).to.equal(200);
    return response.body as T;
  };

  const deployment = (name: string) =>
    get<DeploymentStatus>(`/apis/apps/v1/namespaces/NS/deployments/${name}`);

  const secretValue = async (name: string, key: string): Promise<string> => {
    const secret = await get<{ data: Record<string, string> }>(`/api/v1/namespaces/NS/secrets/${name}`);
    return Buffer.from(secret.data[key] ?? "", "base64").toString("utf8");
  };

  const envOf = async (name: string, variable: string): Promise<string | undefined> =>
    (await deployment(name)).spec.template.spec.containers[0]?.env?.find((e) => e.name === variable)?.value;

  /**
   * Waits until every Deployment of the release is rolled out with all its replicas Ready, and
   * has at least `minReplicas` (the HPA raises a service from the API's default of 1 to its
   * minimum shortly after the install), then checks it.
   */
  const expectAllReady = async (release: string, expected: number, minReplicas = 1): Promise<void> => {
    const path = `/apis/apps/v1/namespaces/NS/deployments?labelSelector=${encodeURIComponent(`${instanceLabel}=${release}`)}`;
    const settled = (item: DeploymentStatus) =>
      item.status.readyReplicas === item.spec.replicas &&
      item.spec.replicas >= minReplicas &&
      item.status.observedGeneration === item.metadata.generation;
    const deadline = Date.now() + 60_000;
    let list = await get<ObjectList<DeploymentStatus>>(path);
    while (!list.items.every(settled) && Date.now() < deadline) {
      await delay(250);
      list = await get<ObjectList<DeploymentStatus>>(path);
    }
    expect(list.items).to.have.length(expected);
    for (const item of list.items) {
      expect(item.spec.replicas, item.metadata.name).to.be.at.least(minReplicas);
      expect(item.status.readyReplicas, item.metadata.name).to.equal(item.spec.replicas);
      expect(item.status.observedGeneration, item.metadata.name).to.equal(item.metadata.generation);
    }
  };

  /** Objects of the rendered kinds (and what controllers made from them) left in the namespace. */
  const leftovers = async (release: string, kinds: readonly string[]): Promise<string[]> => {
    const left: string[] = [];
    for (const kind of kinds) {
      const path = collections[kind];
      if (path === undefined) throw new Error(`the chart renders ${kind}: add its collection here`);
      const list = await get<ObjectList<Manifest>>(path);
      for (const item of list.items) {
        const ours =
          item.metadata.labels?.[instanceLabel] === release ||
          item.metadata.name.startsWith(`${release}-`) ||
          item.metadata.name.startsWith(`sh.helm.release.v1.${release}.`);
        if (ours) left.push(`${kind} ${item.metadata.name}`);
      }
    }
    return left;
  };

  let renderedKinds: string[] = [];
  let serviceDeployments = 0;

  it("installs with --wait: every Deployment Ready, spread over the nodes, no warning printed", async () => {
    const printed = await deploy("install", "shop", "default");
    // NOTES.txt: how to reach the edge and log in, with this release's names.
    expect(printed).to.include(`kubectl port-forward -n ${namespace} service/shop-envoy 8080:80`);
    expect(printed).to.include(
      `kubectl get secret shop-admin -n ${namespace} -o jsonpath='{.data.ADMIN_PASSWORD}'`,
    );
    const manifest = await runHelm(["get", "manifest", "shop"]);
    const manifests = parseManifests(manifest.stdout);
    renderedKinds = [...new Set(manifests.map((m) => m.kind))].sort();
    serviceDeployments = manifests.filter((m) => m.kind === "Deployment").length;
    // Every deployable of the catalog, and Envoy.
    expect(serviceDeployments).to.equal(deployableServices.length + 1);
    // Two replicas each: Envoy's by value, the services' by their HPA's minimum.
    await expectAllReady("shop", serviceDeployments, 2);
    const pods = await get<ObjectList<{ spec: { nodeName?: string } }>>(
      `/api/v1/namespaces/NS/pods?labelSelector=${encodeURIComponent("app.kubernetes.io/component=envoy")}`,
    );
    const nodes = new Set(pods.items.map((pod) => pod.spec.nodeName));
    expect(nodes.size, "Envoy's two replicas on two nodes").to.equal(2);
  });

  it("upgrades a service's setting: it lands, Envoy keeps its pods, generated secrets are kept", async () => {
    const envoyBefore = await deployment("shop-envoy");
    const jwtBefore = await secretValue("shop-jwt", "JWT_SECRET");
    const adminBefore = await secretValue("shop-admin", "ADMIN_PASSWORD");
    expect(await envOf("shop-product", "RESERVATION_TTL")).to.equal("2m");

    await deploy("upgrade", "shop", "default", ["settings.reservationTtl=5m"]);
    expect(await envOf("shop-product", "RESERVATION_TTL")).to.equal("5m");
    expect((await deployment("shop-envoy")).metadata.generation).to.equal(envoyBefore.metadata.generation);
    expect(await secretValue("shop-jwt", "JWT_SECRET")).to.equal(jwtBefore);
    expect(await secretValue("shop-admin", "ADMIN_PASSWORD")).to.equal(adminBefore);
    await expectAllReady("shop", serviceDeployments);
  });

  it("upgrades the edge secret: Envoy rolls, it and each service get the credential derived for that service", async () => {
    const envoyBefore = await deployment("shop-envoy");
    const edgeSecret = "rotated-edge-secret-".padEnd(40, "x");
    await deploy("upgrade", "shop", "default", [
      "settings.reservationTtl=5m",
      `secrets.trust.edgeSecret=${edgeSecret}`,
    ]);
    const envoyAfter = await deployment("shop-envoy");
    expect(envoyAfter.metadata.generation).to.be.greaterThan(envoyBefore.metadata.generation);
    expect(envoyAfter.spec.template.metadata.annotations?.["checksum/secrets"]).to.not.equal(
      envoyBefore.spec.template.metadata.annotations?.["checksum/secrets"],
    );
    expect(await secretValue("shop-trust", "EDGE_SECRET")).to.equal(edgeSecret);
    expect(await secretValue("shop-trust", "edge-credential.order")).to.equal(
      edgeCredential(edgeSecret, "order"),
    );
    expect(await secretValue("shop-trust", "edge-credential-sha256.order")).to.equal(
      credentialSha256(edgeCredential(edgeSecret, "order")),
    );
    await expectAllReady("shop", serviceDeployments);
  });

  it("upgrades to a chart whose generated Envoy configuration changed: Envoy rolls, the services do not", async () => {
    const next = join(scratch(), "chart-next");
    await cp(chartDir, next, { recursive: true });
    await appendFile(join(next, "files", "envoy.yaml"), "# regenerated\n");
    const [envoyBefore, productBefore] = [await deployment("shop-envoy"), await deployment("shop-product")];
    await deploy(
      "upgrade",
      "shop",
      "default",
      ["settings.reservationTtl=5m", `secrets.trust.edgeSecret=${rotatedEdgeSecret}`],
      next,
    );
    const [envoyAfter, productAfter] = [await deployment("shop-envoy"), await deployment("shop-product")];
    expect(envoyAfter.metadata.generation).to.be.greaterThan(envoyBefore.metadata.generation);
    expect(envoyAfter.spec.template.metadata.annotations?.["checksum/config"]).to.not.equal(
      envoyBefore.spec.template.metadata.annotations?.["checksum/config"],
    );
    expect(productAfter.metadata.generation).to.equal(productBefore.metadata.generation);
    await expectAllReady("shop", serviceDeployments);
  });

  it("rolls back to the first revision: the setting and the edge secret are back", async () => {
    const first = await runHelm(["get", "manifest", "shop", "--revision", "1"]);
    const firstTrust = parseManifests(first.stdout).find((m) => m.metadata.name === "shop-trust");
    const result = await runHelm(["rollback", "shop", "1", "--wait", "--timeout", "180s"]);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.equal("");
    expect(await envOf("shop-product", "RESERVATION_TTL")).to.equal("2m");
    for (const key of ["EDGE_SECRET", "edge-credential.order", "edge-credential-sha256.order"]) {
      expect(await secretValue("shop-trust", key), key).to.equal(
        Buffer.from(firstTrust?.data?.[key] ?? "", "base64").toString("utf8"),
      );
    }
    const history = await runHelm(["history", "shop", "--output", "json"]);
    const revisions = JSON.parse(history.stdout) as { revision: number; status: string }[];
    expect(revisions.map((r) => [r.revision, r.status])).to.deep.equal([
      [1, "superseded"],
      [2, "superseded"],
      [3, "superseded"],
      [4, "superseded"],
      [5, "deployed"],
    ]);
    await expectAllReady("shop", serviceDeployments);
  });

  it("installs a second release with the dev profile beside it: its dependencies Ready too", async () => {
    await deploy("install", "dev", "dev");
    // The services, Envoy, MongoDB, Kafka and ClickHouse.
    await expectAllReady("dev", serviceDeployments + 3);
    expect(await envOf("dev-order", "MONGODB_URL")).to.equal("mongodb://dev-mongodb:27017");
    expect(await envOf("dev-analytics", "CLICKHOUSE_URL")).to.equal(
      "http://dev-clickhouse:8123/commerce_analytics",
    );
  });

  it("uninstalls without leaving anything of the release behind, and leaves the other release alone", async () => {
    expect(renderedKinds).to.include.members(["Deployment", "NetworkPolicy", "Secret", "ConfigMap"]);
    const kinds = [...renderedKinds, "Pod", "ReplicaSet", "EndpointSlice", "Secret"];
    expect(await leftovers("shop", kinds)).to.not.deep.equal([]);
    const result = await runHelm(["uninstall", "shop", "--wait", "--timeout", "120s"]);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stderr).to.equal("");
    // Pods, ReplicaSets and EndpointSlices go through the garbage collector: give it time.
    const deadline = Date.now() + 60_000;
    let left = await leftovers("shop", kinds);
    while (left.length > 0 && Date.now() < deadline) {
      await delay(500);
      left = await leftovers("shop", kinds);
    }
    expect(left).to.deep.equal([]);
    await expectAllReady("dev", serviceDeployments + 3);
    const removed = await runHelm(["uninstall", "dev", "--wait", "--timeout", "120s"]);
    expect(removed.status, removed.stderr).to.equal(0);
  });
});
