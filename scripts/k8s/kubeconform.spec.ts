/**
 * kubeconform with our schemas validates strictly against Kubernetes 1.37: what the API
 * accepts passes, a misspelt field or an unknown kind fails.
 */
import { expect } from "chai";
import { ensureKubeconform, type Kubeconform } from "./kubeconform.js";
import { runTool } from "./run-tool.js";

const deployment = (extra: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  creationTimestamp: null
spec:
  replicas: 2${extra}
  selector:
    matchLabels: {app: web}
  strategy:
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: registry.invalid/web:1
          ports: [{name: grpc, containerPort: 50051}]
          resources:
            requests: {cpu: 100m, memory: 64Mi}
            limits: {cpu: 1, memory: 128Mi}
`;

const service = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{name: grpc, port: 50051, targetPort: grpc}]
`;

const networkPolicy = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
`;

describe("kubeconform with the Kubernetes 1.37 strict schemas", function () {
  // A cold cache builds kubeconform and converts the schemas first (under a minute).
  this.timeout(10 * 60_000);
  let kubeconform: Kubeconform;

  before(async () => {
    kubeconform = await ensureKubeconform();
  });

  const validate = (manifests: readonly string[]) =>
    runTool(kubeconform.binary, kubeconform.args, { input: manifests.join("---\n") });

  it("passes what the API accepts: quantities as numbers, int-or-string ports and percentages, null", async () => {
    const result = await validate([deployment(""), service, networkPolicy]);
    expect(result.status, result.stdout).to.equal(0);
    expect(result.stdout).to.include("Valid: 3, Invalid: 0, Errors: 0, Skipped: 0");
  });

  it("fails a misspelt field", async () => {
    const result = await validate([deployment("\n  replcas: 3"), service]);
    expect(result.status).to.equal(1);
    expect(result.stdout).to.match(
      /Deployment web is invalid: .*additional properties 'replcas' not allowed/,
    );
    expect(result.stdout).to.include("Valid: 1, Invalid: 1");
  });

  it("fails a kind it has no schema for instead of skipping it", async () => {
    const result = await validate(["apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"]);
    expect(result.status).to.equal(1);
    expect(result.stdout).to.include("Errors: 1");
  });
});
