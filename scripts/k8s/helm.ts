/**
 * helm, built from its module with the version flags of helm's own Makefile: without them
 * `helm version` is empty and `.Capabilities.KubeVersion` (and lint's deprecation checks) say
 * Kubernetes 1.20; with them they say the Kubernetes minor of the client libraries helm is built
 * against, which is the control plane's (kube-versions.ts).
 */
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";
import { kubeVersions } from "./kube-versions.js";

const helmPackage = "helm.sh/helm/v3";

/** `{ major: "1", minor: "37" }` of a `v1.37.2`. */
export function kubeMinorOf(version: string): { readonly major: string; readonly minor: string } {
  const match = /^v(\d+)\.(\d+)\./.exec(version);
  if (match?.[1] === undefined || match[2] === undefined)
    throw new Error(`not a Kubernetes version: ${version}`);
  return { major: match[1], minor: match[2] };
}

function helmLinkerFlags(): string {
  const { major, minor } = kubeMinorOf(kubeVersions.kubernetes);
  return [
    "-s -w",
    `-X ${helmPackage}/internal/version.version=${kubeVersions.helm}`,
    `-X ${helmPackage}/internal/version.gitTreeState=clean`,
    `-X ${helmPackage}/pkg/lint/rules.k8sVersionMajor=${major}`,
    `-X ${helmPackage}/pkg/lint/rules.k8sVersionMinor=${minor}`,
    `-X ${helmPackage}/pkg/chartutil.k8sVersionMajor=${major}`,
    `-X ${helmPackage}/pkg/chartutil.k8sVersionMinor=${minor}`,
  ].join(" ");
}

/** The path of the cached helm binary. */
export async function ensureHelm(options: ArtifactOptions = {}): Promise<string> {
  const ldflags = helmLinkerFlags();
  const tool = await ensureArtifact(
    {
      name: `helm-${kubeVersions.helm}`,
      inputs: [kubeVersions.helm, ldflags],
      build: async (dir) => {
        await runGo(["install", "-ldflags", ldflags, `${helmPackage}/cmd/helm@${kubeVersions.helm}`], {
          cwd: dir,
          env: { GOBIN: dir },
        });
      },
    },
    options,
  );
  return join(tool.dir, "helm");
}
