/**
 * The whole Kubernetes toolchain of our tests, built from the Go module proxy into the per-user
 * cache (cached-tool.ts for the layout). A cold build takes tens of minutes on two cores
 * (docs/decisions.md, "Kubernetes tooling", for the measured times); a warm one, nothing.
 * Tools are built one after the other: each Go build already uses every core.
 */
import { defaultKubeCacheRoot, toolBuildContext, type ToolBuildContext } from "./cached-tool.js";
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

export interface KubeToolsOptions {
  /** Defaults to `${XDG_CACHE_HOME:-$HOME/.cache}/commerce-platform/k8s`. */
  readonly cacheRoot?: string;
  /** Build progress; defaults to stderr. */
  readonly log?: (message: string) => void;
  /** Told of every tool that had to be built, and what it took. */
  readonly onBuilt?: (name: string, seconds: number) => void;
}

const defaultLog = (message: string): void => {
  process.stderr.write(`k8s tools: ${message}\n`);
};

/** The build context of one tool's `ensure…` (helm.ts, kubeconform.ts, …) for these options. */
export function kubeToolContext(options: KubeToolsOptions = {}): ToolBuildContext {
  return toolBuildContext(
    options.cacheRoot ?? defaultKubeCacheRoot(process.env),
    options.log ?? defaultLog,
    options.onBuilt,
  );
}

/** What a control plane needs: etcd, the three servers and kwok. */
export async function ensureControlPlaneTools(
  options: KubeToolsOptions = {},
): Promise<Pick<KubeTools, "etcd" | "controlPlane" | "kwok">> {
  const context = kubeToolContext(options);
  const etcd = await ensureEtcd(context);
  const controlPlane = await ensureControlPlaneBinaries(context);
  const kwok = await ensureKwok(context);
  return { etcd, controlPlane, kwok };
}

/** Every tool, built if the cache lacks it. */
export async function ensureKubeTools(options: KubeToolsOptions = {}): Promise<KubeTools> {
  const context = kubeToolContext(options);
  const helm = await ensureHelm(context);
  const kubeconform = await ensureKubeconform(context);
  const controlPlaneTools = await ensureControlPlaneTools(options);
  const skaffold = await ensureSkaffold(context);
  return { helm, kubeconform, ...controlPlaneTools, skaffold };
}
