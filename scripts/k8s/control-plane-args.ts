/**
 * The command lines of a private control plane's components: everything on loopback, every
 * port chosen by the caller, nothing written outside the control plane's folder, leader election
 * off (one instance of each). kwok manages only the nodes annotated as fake, so it would never
 * touch a real node even if pointed at a real cluster.
 */
import type { ControlPlanePki } from "./control-plane-pki.js";

/** The annotation that hands a Node to kwok. */
export const fakeNodeAnnotation = { key: "kwok.x-k8s.io/node", value: "fake" } as const;

/** The range Service cluster IPs come from (never routed: only the API server uses it). */
const serviceClusterIpRange = "10.96.0.0/16";

export function etcdArgs(dir: string, clientPort: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    "--name=control-plane",
    `--data-dir=${dir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=control-plane=${peer}`,
    // A throwaway test store: durability on power loss buys nothing and costs every write.
    "--unsafe-no-fsync",
    "--log-level=warn",
  ];
}

export function apiServerArgs(options: {
  readonly pki: ControlPlanePki;
  readonly port: number;
  readonly etcdPort: number;
  readonly certDir: string;
}): string[] {
  const { pki } = options;
  return [
    `--etcd-servers=http://127.0.0.1:${options.etcdPort}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    // The endpoint reconciler refuses a loopback address, and nothing in a fake pod calls the
    // `kubernetes` Service anyway: it keeps no endpoints.
    "--endpoint-reconciler-type=none",
    `--secure-port=${options.port}`,
    `--cert-dir=${options.certDir}`,
    `--tls-cert-file=${pki.serverCert}`,
    `--tls-private-key-file=${pki.serverKey}`,
    `--client-ca-file=${pki.caCert}`,
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${pki.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${pki.serviceAccountKey}`,
    `--service-cluster-ip-range=${serviceClusterIpRange}`,
    "--authorization-mode=RBAC",
    "--profiling=false",
  ];
}

export function controllerManagerArgs(kubeconfig: string, pki: ControlPlanePki): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    "--bind-address=127.0.0.1",
    "--secure-port=0",
    "--leader-elect=false",
    `--root-ca-file=${pki.caCert}`,
    `--service-account-private-key-file=${pki.serviceAccountKey}`,
    `--service-cluster-ip-range=${serviceClusterIpRange}`,
    "--profiling=false",
  ];
}

export function schedulerArgs(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    "--bind-address=127.0.0.1",
    "--secure-port=0",
    "--leader-elect=false",
    "--profiling=false",
  ];
}

export function kwokArgs(kubeconfig: string, stages: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--config=${stages}`,
    "--manage-all-nodes=false",
    `--manage-nodes-with-annotation-selector=${fakeNodeAnnotation.key}=${fakeNodeAnnotation.value}`,
  ];
}

/**
 * A fake node with room for every test workload; no taint, so ordinary pods land on it. Its
 * zone label lets topology spread constraints on zones be satisfied.
 */
export function fakeNode(name: string, zone: string): object {
  const capacity = { cpu: "32", memory: "256Gi", pods: "110" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: {
        [fakeNodeAnnotation.key]: fakeNodeAnnotation.value,
        "node.alpha.kubernetes.io/ttl": "0",
      },
      labels: {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/os": "linux",
        "kubernetes.io/hostname": name,
        "topology.kubernetes.io/region": "local",
        "topology.kubernetes.io/zone": zone,
        type: "kwok",
      },
    },
    status: { capacity, allocatable: capacity },
  };
}
