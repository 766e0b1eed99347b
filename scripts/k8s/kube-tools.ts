/**
 * The whole Kubernetes toolchain of our tests, built from the Go module proxy into the project's
 * cache (scripts/cache/cached-artifact.ts for the layout). A cold build takes tens of minutes on
 * two cores (ADR 0074, for the measured times); with Go's own
 * caches warm, the links alone; with the project's cache warm, nothing.
 * Tools are built one after the other: each Go build already uses every core.
 */
import type { ArtifactOptions } from "../cache/cached-artifact.js";
import { ensureEtcd } from "./etcd.js";
import { ensureHelm } from "./helm.js";
import { ensureControlPlaneBinaries, type ControlPlaneCommand } from "./kube-control-plane-binaries.js";
import { ensureKubeconform, type Kubeconform } from "./kubeconform.js";
import { ensureKwok, type Kwok } from "./kwok.js";
import { ensureSkaffold, type Skaffold } from "./skaffold.js";

export interface KubeTools {
  readonly helm: string;
  readonly kubeconform: Kubeconform;
  readonly etcd: string;
  readonly controlPlane: Readonly<Record<ControlPlaneCommand, string>>;
  readonly kwok: Kwok;
  readonly skaffold: Skaffold;
}

/** What a control plane needs: etcd, the three servers and kwok. */
export async function ensureControlPlaneTools(
  options: ArtifactOptions = {},
): Promise<Pick<KubeTools, "etcd" | "controlPlane" | "kwok">> {
  const etcd = await ensureEtcd(options);
  const controlPlane = await ensureControlPlaneBinaries(options);
  const kwok = await ensureKwok(options);
  return { etcd, controlPlane, kwok };
}

/** Every tool, built if the cache lacks it. */
export async function ensureKubeTools(options: ArtifactOptions = {}): Promise<KubeTools> {
  const helm = await ensureHelm(options);
  const kubeconform = await ensureKubeconform(options);
  const controlPlaneTools = await ensureControlPlaneTools(options);
  const skaffold = await ensureSkaffold(options);
  return { helm, kubeconform, ...controlPlaneTools, skaffold };
}
