/**
 * The Kubernetes toolchain's versions, in one place (ADR 0074).
 *
 * They move together: helm v3.22 is built against the v0.37 client libraries, so the control
 * plane, the schemas and helm's own idea of the cluster (`.Capabilities.KubeVersion`) are all
 * Kubernetes 1.37, and etcd is the 3.7 line that Kubernetes 1.37 is built and tested with.
 * The wrapper modules beside this file (`etcd/`, `kubernetes/`, `skaffold/`) pin the same
 * versions in their go.mod.
 */
export const kubeVersions = {
  /** kube-apiserver, kube-controller-manager, kube-scheduler and the validation schemas. */
  kubernetes: "v1.37.2",
  etcd: "v3.7.3",
  helm: "v3.22.0",
  kubeconform: "v0.8.0",
  kwok: "v0.8.0",
  skaffold: "v2.16.1",
  /** skaffold.yaml's apiVersion for skaffold v2.16 (`skaffold/v4beta13`). */
  skaffoldSchema: "v4beta13",
} as const;
