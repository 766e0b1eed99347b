/**
 * The hardening every pod of the chart must have, checked on rendered manifests: one line per
 * problem, so that a failing test says which pod and what.
 */
import type { Manifest } from "./chart.js";

interface SecurityContext {
  readonly runAsNonRoot?: boolean;
  readonly runAsUser?: number;
  readonly readOnlyRootFilesystem?: boolean;
  readonly allowPrivilegeEscalation?: boolean;
  readonly privileged?: boolean;
  readonly capabilities?: { readonly drop?: readonly string[]; readonly add?: readonly string[] };
  readonly seccompProfile?: { readonly type?: string };
}

interface Container {
  readonly name: string;
  readonly securityContext?: SecurityContext;
  readonly resources?: {
    readonly requests?: Readonly<Record<string, unknown>>;
    readonly limits?: Readonly<Record<string, unknown>>;
  };
  readonly volumeMounts?: readonly { readonly mountPath: string }[];
}

export interface PodSpec {
  readonly serviceAccountName?: string;
  readonly automountServiceAccountToken?: boolean;
  readonly hostNetwork?: boolean;
  readonly hostPID?: boolean;
  readonly hostIPC?: boolean;
  readonly securityContext?: SecurityContext;
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly volumes?: readonly Record<string, unknown>[];
}

/** `Deployment name` → its pod template's spec; `Pod name` → its spec. */
export function podSpecs(manifests: readonly Manifest[]): Map<string, PodSpec> {
  const specs = new Map<string, PodSpec>();
  for (const manifest of manifests) {
    const id = `${manifest.kind} ${manifest.metadata.name}`;
    if (manifest.kind === "Deployment") {
      specs.set(id, (manifest.spec as { template: { spec: PodSpec } }).template.spec);
    } else if (manifest.kind === "Pod") {
      specs.set(id, manifest.spec as PodSpec);
    } else if (["StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicaSet"].includes(manifest.kind)) {
      specs.set(id, { containers: [{ name: `unchecked ${manifest.kind}` }] });
    }
  }
  return specs;
}

function containerProblems(pod: PodSpec, container: Container): string[] {
  const own = container.securityContext ?? {};
  const inherited = pod.securityContext ?? {};
  const runAsNonRoot = own.runAsNonRoot ?? inherited.runAsNonRoot;
  const runAsUser = own.runAsUser ?? inherited.runAsUser;
  const seccomp = own.seccompProfile?.type ?? inherited.seccompProfile?.type;
  const problems: string[] = [];
  if (runAsNonRoot !== true) problems.push("may run as root (runAsNonRoot is not true)");
  if (typeof runAsUser !== "number" || runAsUser === 0) problems.push("has no numeric non-root runAsUser");
  if (own.readOnlyRootFilesystem !== true) problems.push("has a writable root filesystem");
  if (own.allowPrivilegeEscalation !== false) problems.push("allows privilege escalation");
  if (own.privileged === true) problems.push("is privileged");
  if (!(own.capabilities?.drop ?? []).includes("ALL")) problems.push("does not drop ALL capabilities");
  if ((own.capabilities?.add ?? []).length > 0) problems.push("adds capabilities");
  if (seccomp !== "RuntimeDefault") problems.push("has no RuntimeDefault seccomp profile");
  for (const kind of ["requests", "limits"] as const) {
    for (const resource of ["cpu", "memory"]) {
      if (container.resources?.[kind]?.[resource] === undefined) problems.push(`has no ${resource} ${kind}`);
    }
  }
  return problems.map((problem) => `container ${container.name} ${problem}`);
}

/** Every problem of every pod, `Deployment r-auth: container auth may run as root`. */
export function podSecurityProblems(manifests: readonly Manifest[]): string[] {
  const accounts = new Map(
    manifests
      .filter((manifest) => manifest.kind === "ServiceAccount")
      .map((manifest) => [manifest.metadata.name, manifest.automountServiceAccountToken]),
  );
  const problems: string[] = [];
  for (const [id, pod] of podSpecs(manifests)) {
    const own: string[] = [];
    if (pod.automountServiceAccountToken !== false) own.push("mounts a service-account token");
    if (pod.serviceAccountName !== undefined && accounts.get(pod.serviceAccountName) !== false) {
      own.push(`uses ServiceAccount ${pod.serviceAccountName}, which is not the chart's or mounts its token`);
    }
    if (pod.hostNetwork === true || pod.hostPID === true || pod.hostIPC === true)
      own.push("shares a host namespace");
    if ((pod.volumes ?? []).some((volume) => "hostPath" in volume)) own.push("mounts a host path");
    for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
      own.push(...containerProblems(pod, container));
    }
    problems.push(...own.map((problem) => `${id}: ${problem}`));
  }
  return problems;
}
