/**
 * The private control plane is a real Kubernetes API: a Deployment's pods are scheduled on a
 * kwok node and become Ready, and helm installs a chart with `--wait` against it, printing no
 * server warning (and it would print one for a field the API does not know).
 */
import { expect } from "chai";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { usePrivateControlPlane } from "./control-plane-fixture.js";
import { kubeRequest, type KubeAccess } from "./kube-api.js";
import { helmEnvironment, runTool } from "./run-tool.js";

interface Deployment {
  readonly status?: { readonly readyReplicas?: number };
}
interface PodList {
  readonly items: readonly {
    readonly spec: { readonly nodeName?: string };
    readonly status: {
      readonly phase?: string;
      readonly conditions?: readonly { type: string; status: string }[];
    };
  }[];
}

function deployment(name: string, replicas: number): object {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        // Never pulled: kwok only pretends to run containers.
        spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] },
      },
    },
  };
}

async function readyReplicas(access: KubeAccess, name: string): Promise<number> {
  const response = await kubeRequest(access, "GET", `/apis/apps/v1/namespaces/default/deployments/${name}`);
  return (response.body as Deployment).status?.readyReplicas ?? 0;
}

async function waitForReadyReplicas(access: KubeAccess, name: string, replicas: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  let ready = await readyReplicas(access, name);
  while (ready !== replicas && Date.now() < deadline) {
    await delay(100);
    ready = await readyReplicas(access, name);
  }
  return ready;
}

/** A chart with one Deployment; `extraField` adds a field the API does not know. */
async function writeChart(dir: string, extraField: boolean): Promise<void> {
  await mkdir(join(dir, "templates"), { recursive: true });
  await writeFile(join(dir, "Chart.yaml"), "apiVersion: v2\nname: probe\nversion: 0.1.0\n");
  const deploymentYaml = [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    "  name: {{ .Release.Name }}",
    "spec:",
    "  replicas: 2",
    ...(extraField ? ["  replcas: 3"] : []),
    "  selector:",
    "    matchLabels: {app: {{ .Release.Name }}}",
    "  template:",
    "    metadata:",
    "      labels: {app: {{ .Release.Name }}}",
    "    spec:",
    "      containers:",
    "        - name: app",
    "          image: registry.invalid/app:1",
    "",
  ].join("\n");
  await writeFile(join(dir, "templates", "deployment.yaml"), deploymentYaml);
}

describe("startControlPlane", function () {
  // A cold cache builds the toolchain first (tens of minutes); a warm start takes seconds.
  this.timeout(60 * 60_000);
  const { plane, helm, scratch } = usePrivateControlPlane({ prefix: "control-plane-spec-", nodes: 2 });

  it("runs a Deployment's pods Ready on its kwok nodes, without a server warning", async function () {
    this.timeout(60_000);
    const created = await kubeRequest(
      plane().access,
      "POST",
      "/apis/apps/v1/namespaces/default/deployments",
      deployment("web", 3),
    );
    expect(created.status, created.text).to.equal(201);
    expect(created.warnings).to.deep.equal([]);

    expect(await waitForReadyReplicas(plane().access, "web", 3)).to.equal(3);
    const pods = (
      await kubeRequest(plane().access, "GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb")
    ).body as PodList;
    expect(pods.items).to.have.length(3);
    for (const pod of pods.items) {
      expect(plane().nodeNames).to.include(pod.spec.nodeName);
      expect(pod.status.phase).to.equal("Running");
      const ready = pod.status.conditions?.find((condition) => condition.type === "Ready");
      expect(ready?.status).to.equal("True");
    }
  });

  it("installs a chart with helm install --wait: deployed, Ready, and no warning printed", async function () {
    this.timeout(120_000);
    const chart = join(scratch(), "chart");
    await writeChart(chart, false);
    const installed = await runTool(
      helm(),
      ["install", "probe", chart, "--kubeconfig", plane().kubeconfig, "--wait", "--timeout", "60s"],
      { env: helmEnvironment(join(scratch(), "helm")) },
    );
    expect(installed.status, installed.stderr).to.equal(0);
    expect(installed.stderr).to.equal("");
    expect(installed.stdout).to.match(/^STATUS: deployed$/m);
    expect(await readyReplicas(plane().access, "probe")).to.equal(2);
  });

  it("shows the server's warning for a field the API does not know (what the check above looks for)", async function () {
    this.timeout(120_000);
    const chart = join(scratch(), "chart-with-unknown-field");
    await writeChart(chart, true);
    const installed = await runTool(
      helm(),
      ["install", "probe-unknown", chart, "--kubeconfig", plane().kubeconfig, "--wait", "--timeout", "60s"],
      { env: helmEnvironment(join(scratch(), "helm")) },
    );
    expect(installed.status, installed.stderr).to.equal(0);
    // helm logs it through klog: `I… warnings.go:…] "Warning: unknown field \"spec.replcas\""`.
    expect(installed.stderr).to.match(/Warning: unknown field \\"spec\.replcas\\"/);
  });
});
