/**
 * What the chart's NetworkPolicies allow, as one line per flow, and what the architecture says
 * they should allow, computed from the service catalog (scripts/cluster/service-catalog.ts) and
 * the profile's values, so that the two can be compared as sets.
 *
 * A flow reads `egress auth -> user:9090/TCP` (auth may send to user's pods on 9090) or
 * `ingress envoy -> auth:9090/TCP` (auth's pods accept envoy's). A peer that is not one of the
 * release's pods is described by what selects it: `anywhere`, `cidr 10.0.0.0/8`, or
 * `namespace {...} pods {...}`.
 */
import type { DeployableService } from "../../scripts/cluster/service-catalog.js";
import { componentOf, instanceLabel, type Manifest } from "./chart.js";

interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly unknown[];
}

export interface PolicyPeer {
  readonly podSelector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly ipBlock?: { readonly cidr: string; readonly except?: readonly string[] };
}

interface PolicyPort {
  readonly port?: number | string;
  readonly protocol?: string;
}

interface PolicyRule {
  readonly from?: readonly PolicyPeer[];
  readonly to?: readonly PolicyPeer[];
  readonly ports?: readonly PolicyPort[];
}

interface NetworkPolicySpec {
  readonly podSelector: LabelSelector;
  readonly policyTypes?: readonly string[];
  readonly ingress?: readonly PolicyRule[];
  readonly egress?: readonly PolicyRule[];
}

interface PodTemplateOwner {
  readonly template: { readonly metadata: { readonly labels: Readonly<Record<string, string>> } };
}

/** A pod the chart runs: each Deployment's template, and each bare Pod (the test hook). */
export interface ChartPod {
  readonly component: string;
  readonly labels: Readonly<Record<string, string>>;
}

export function chartPods(manifests: readonly Manifest[]): ChartPod[] {
  return manifests.flatMap((manifest): ChartPod[] => {
    if (manifest.kind === "Deployment") {
      const labels = (manifest.spec as PodTemplateOwner).template.metadata.labels;
      return [{ component: componentOf(manifest), labels }];
    }
    if (manifest.kind === "Pod")
      return [{ component: componentOf(manifest), labels: manifest.metadata.labels ?? {} }];
    return [];
  });
}

function selects(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  if ((selector.matchExpressions ?? []).length > 0) throw new Error("matchExpressions are not analysed");
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

/** How a peer outside the release's pods is named in a flow. */
export function describePeer(peer: PolicyPeer): string {
  if (peer.ipBlock !== undefined) {
    const except = peer.ipBlock.except?.length ? ` except ${peer.ipBlock.except.join(",")}` : "";
    return `cidr ${peer.ipBlock.cidr}${except}`;
  }
  if (peer.namespaceSelector !== undefined) {
    return `namespace ${JSON.stringify(peer.namespaceSelector.matchLabels ?? {})} pods ${JSON.stringify(peer.podSelector?.matchLabels ?? {})}`;
  }
  return `pods ${JSON.stringify(peer.podSelector?.matchLabels ?? {})}`;
}

/** The release's components a peer stands for, or its description when it is none of them. */
function peerNames(peer: PolicyPeer | undefined, pods: readonly ChartPod[]): string[] {
  if (peer === undefined) return ["anywhere"];
  // Only a selector that names the release stands for its pods: one without the instance label
  // would also match another release's pods in the namespace.
  const selector = peer.podSelector;
  if (
    selector?.matchLabels?.[instanceLabel] !== undefined &&
    peer.namespaceSelector === undefined &&
    peer.ipBlock === undefined
  ) {
    const matched = pods.filter((pod) => selects(selector, pod.labels)).map((pod) => pod.component);
    if (matched.length > 0) return matched;
  }
  return [describePeer(peer)];
}

function portNames(ports: readonly PolicyPort[] | undefined): string[] {
  if (ports === undefined || ports.length === 0) return ["any port"];
  return ports.map((port) => `${port.port ?? "any"}/${port.protocol ?? "TCP"}`);
}

export interface PolicyAnalysis {
  /** Every allowed flow, sorted. */
  readonly flows: readonly string[];
  /** Pods no policy denies by default in both directions. */
  readonly undenied: readonly string[];
}

export function analysePolicies(manifests: readonly Manifest[]): PolicyAnalysis {
  const pods = chartPods(manifests);
  const policies = manifests
    .filter((manifest) => manifest.kind === "NetworkPolicy")
    .map((manifest) => manifest.spec as NetworkPolicySpec);
  const flows = new Set<string>();
  const undenied: string[] = [];
  for (const pod of pods) {
    const applying = policies.filter((policy) => selects(policy.podSelector, pod.labels));
    const types = new Set(applying.flatMap((policy) => policy.policyTypes ?? []));
    if (!types.has("Ingress") || !types.has("Egress")) undenied.push(pod.component);
    for (const policy of applying) {
      for (const rule of policy.ingress ?? []) {
        for (const from of rule.from?.length ? rule.from : [undefined]) {
          for (const name of peerNames(from, pods)) {
            for (const port of portNames(rule.ports))
              flows.add(`ingress ${name} -> ${pod.component}:${port}`);
          }
        }
      }
      for (const rule of policy.egress ?? []) {
        for (const to of rule.to?.length ? rule.to : [undefined]) {
          for (const name of peerNames(to, pods)) {
            for (const port of portNames(rule.ports)) flows.add(`egress ${pod.component} -> ${name}:${port}`);
          }
        }
      }
    }
  }
  return { flows: [...flows].sort(), undenied };
}

interface DependencyValues {
  readonly networkPolicy: { readonly port: number; readonly to?: readonly PolicyPeer[] };
}

/** The values the expected flows depend on. */
export interface FlowValues {
  readonly inCluster: { readonly enabled: boolean };
  readonly mongodb: DependencyValues;
  readonly kafka: DependencyValues;
  readonly clickhouse: DependencyValues;
  readonly otel: DependencyValues & { readonly endpoint: string };
  readonly payment: DependencyValues & { readonly gatewayUrl: string };
  readonly dns: {
    readonly namespaceSelector: Readonly<Record<string, string>>;
    readonly podSelector: Readonly<Record<string, string>>;
  };
}

const grpcPort = 9090;
const edgePort = 8080;
const inClusterPorts = { mongodb: 27017, kafka: 9092, clickhouse: 8123 } as const;

/** The flows the architecture needs (ADR 0077), and no other. */
export function expectedFlows(services: readonly DeployableService[], values: FlowValues): string[] {
  const flows = new Set<string>();
  const both = (from: string, to: string, port: number) => {
    flows.add(`egress ${from} -> ${to}:${port}/TCP`);
    flows.add(`ingress ${from} -> ${to}:${port}/TCP`);
  };
  const external = (from: string, dependency: DependencyValues) => {
    const targets = dependency.networkPolicy.to?.length
      ? dependency.networkPolicy.to.map(describePeer)
      : ["anywhere"];
    for (const target of targets)
      flows.add(`egress ${from} -> ${target}:${dependency.networkPolicy.port}/TCP`);
  };
  const inCluster = values.inCluster.enabled;
  // The public site calls nothing, not even DNS.
  const components = [
    "envoy",
    "test",
    ...services.filter((service) => service.kind === "service").map((service) => service.name),
    ...(inCluster ? Object.keys(inClusterPorts) : []),
  ];
  const dns = describePeer({
    namespaceSelector: { matchLabels: values.dns.namespaceSelector },
    podSelector: { matchLabels: values.dns.podSelector },
  });
  for (const component of components) {
    flows.add(`egress ${component} -> ${dns}:53/UDP`);
    flows.add(`egress ${component} -> ${dns}:53/TCP`);
  }
  flows.add(`ingress anywhere -> envoy:${edgePort}/TCP`);
  flows.add(`egress test -> envoy:${edgePort}/TCP`);
  if (values.otel.endpoint !== "") external("envoy", values.otel);
  for (const service of services) {
    if (service.routed || service.kind === "site") both("envoy", service.name, grpcPort);
    if (service.kind === "site") continue;
    for (const peer of Object.values(service.peers)) {
      if (peer !== undefined) both(service.name, peer, grpcPort);
    }
    const dependencies: (keyof typeof inClusterPorts)[] = ["mongodb", "kafka"];
    if (service.owns.includes("CLICKHOUSE_URL")) dependencies.push("clickhouse");
    for (const dependency of dependencies) {
      if (inCluster) both(service.name, dependency, inClusterPorts[dependency]);
      else external(service.name, values[dependency]);
    }
    // The Payment service calls its gateway, when it has one.
    if (service.owns.includes("PAYMENT_GATEWAY_URL") && values.payment.gatewayUrl !== "") {
      external(service.name, values.payment);
    }
    if (values.otel.endpoint !== "") external(service.name, values.otel);
  }
  return [...flows].sort();
}
