/**
 * kube-apiserver, kube-controller-manager and kube-scheduler, built in one `go build` from the
 * wrapper module in ./kubernetes (its go.mod says why it exists). The version flags are those
 * of Kubernetes' own release builds: without them the servers report v0.0.0, and helm, which
 * reads the server's version, would render charts for the wrong cluster.
 */
import { join } from "node:path";
import { ensureArtifact, filesOf, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";
import { kubeMinorOf } from "./helm.js";
import { kubeVersions } from "./kube-versions.js";

const moduleDir = join(import.meta.dirname, "kubernetes");
const commands = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"] as const;

export type ControlPlaneCommand = (typeof commands)[number];

function versionFlags(): string {
  const { major, minor } = kubeMinorOf(kubeVersions.kubernetes);
  const values = {
    gitVersion: kubeVersions.kubernetes,
    gitMajor: major,
    gitMinor: minor,
    gitTreeState: "clean",
    buildDate: "1970-01-01T00:00:00Z",
  };
  return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]
    .flatMap((pkg) => Object.entries(values).map(([name, value]) => `-X ${pkg}.${name}=${value}`))
    .join(" ");
}

/** The paths of the cached control plane binaries. */
export async function ensureControlPlaneBinaries(
  options: ArtifactOptions = {},
): Promise<Readonly<Record<ControlPlaneCommand, string>>> {
  const ldflags = `-s -w ${versionFlags()}`;
  const tool = await ensureArtifact(
    {
      name: `kubernetes-${kubeVersions.kubernetes}`,
      inputs: [ldflags, ...(await filesOf(moduleDir, ["go.mod", "go.sum"]))],
      build: async (dir) => {
        const packages = commands.map((command) => `k8s.io/kubernetes/cmd/${command}`);
        await runGo(["build", "-ldflags", ldflags, "-o", `${dir}/`, ...packages], {
          cwd: moduleDir,
        });
      },
    },
    options,
  );
  return {
    "kube-apiserver": join(tool.dir, "kube-apiserver"),
    "kube-controller-manager": join(tool.dir, "kube-controller-manager"),
    "kube-scheduler": join(tool.dir, "kube-scheduler"),
  };
}
