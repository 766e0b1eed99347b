import { expect } from "chai";
import { kubeconformSchemas, schemaFileName, type OpenApiSpec } from "./kube-schemas.js";

const spec: OpenApiSpec = {
  definitions: {
    "io.k8s.api.apps.v1.Deployment": {
      type: "object",
      required: ["spec"],
      properties: {
        apiVersion: { type: "string" },
        spec: { $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentSpec" },
      },
      "x-kubernetes-group-version-kind": [{ group: "apps", version: "v1", kind: "Deployment" }],
    },
    "io.k8s.api.apps.v1.DeploymentSpec": {
      type: "object",
      properties: {
        replicas: { type: "integer", format: "int32" },
        maxSurge: { $ref: "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString" },
        cpu: { $ref: "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity" },
        labels: { type: "object", additionalProperties: { type: "string" } },
      },
    },
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": { type: "string", format: "int-or-string" },
    "io.k8s.apimachinery.pkg.api.resource.Quantity": { type: "string" },
    "io.k8s.api.core.v1.Unrelated": { type: "object", properties: { a: { type: "string" } } },
    "io.k8s.api.networking.v1.NetworkPolicy": {
      type: "object",
      properties: {},
      "x-kubernetes-group-version-kind": [
        { group: "networking.k8s.io", version: "v1", kind: "NetworkPolicy" },
      ],
    },
  },
};

describe("kubeconformSchemas", () => {
  it("names files as kubeconform looks them up: kind, first label of the group, version", () => {
    expect(schemaFileName({ group: "", version: "v1", kind: "ConfigMap" })).to.equal("configmap-v1.json");
    expect(schemaFileName({ group: "apps", version: "v1", kind: "Deployment" })).to.equal(
      "deployment-apps-v1.json",
    );
    expect(schemaFileName({ group: "networking.k8s.io", version: "v1", kind: "NetworkPolicy" })).to.equal(
      "networkpolicy-networking-v1.json",
    );
    expect([...kubeconformSchemas(spec).keys()]).to.deep.equal([
      "deployment-apps-v1.json",
      "networkpolicy-networking-v1.json",
    ]);
  });

  it("closes objects with declared properties, keeps maps open, admits null, int-or-string and numeric quantities", () => {
    const deployment = kubeconformSchemas(spec).get("deployment-apps-v1.json");
    expect(deployment).to.deep.equal({
      type: ["object", "null"],
      required: ["spec"],
      properties: {
        apiVersion: { type: ["string", "null"] },
        spec: { $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentSpec" },
      },
      additionalProperties: false,
      definitions: {
        "io.k8s.api.apps.v1.DeploymentSpec": {
          type: ["object", "null"],
          properties: {
            replicas: { type: ["integer", "null"], format: "int32" },
            maxSurge: { $ref: "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString" },
            cpu: { $ref: "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity" },
            labels: { type: ["object", "null"], additionalProperties: { type: ["string", "null"] } },
          },
          additionalProperties: false,
        },
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
          oneOf: [{ type: ["string", "null"] }, { type: "integer" }],
        },
        "io.k8s.apimachinery.pkg.api.resource.Quantity": {
          oneOf: [{ type: ["string", "null"] }, { type: "number" }],
        },
      },
    });
  });
});
