/** etcd, the control plane's store, built from the wrapper module in ./etcd (see its main.go). */
import { join } from "node:path";
import { ensureArtifact, filesOf, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";
import { kubeVersions } from "./kube-versions.js";

const moduleDir = join(import.meta.dirname, "etcd");

/** The path of the cached etcd binary. */
export async function ensureEtcd(options: ArtifactOptions = {}): Promise<string> {
  const tool = await ensureArtifact(
    {
      name: `etcd-${kubeVersions.etcd}`,
      inputs: await filesOf(moduleDir, ["main.go", "go.mod", "go.sum"]),
      build: async (dir) => {
        await runGo(["build", "-ldflags", "-s -w", "-o", join(dir, "etcd"), "."], {
          cwd: moduleDir,
        });
      },
    },
    options,
  );
  return join(tool.dir, "etcd");
}
