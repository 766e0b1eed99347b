/** etcd, the control plane's store, built from the wrapper module in ./etcd (see its main.go). */
import { join } from "node:path";
import { ensureCachedTool, moduleFiles, type ToolBuildContext } from "./cached-tool.js";
import { runGo } from "./go-command.js";
import { kubeVersions } from "./kube-versions.js";

const moduleDir = join(import.meta.dirname, "etcd");

/** The path of the cached etcd binary. */
export async function ensureEtcd(context: ToolBuildContext): Promise<string> {
  const tool = await ensureCachedTool(context, {
    name: `etcd-${kubeVersions.etcd}`,
    inputs: await moduleFiles(moduleDir, ["main.go", "go.mod", "go.sum"]),
    build: async (dir) => {
      await runGo(["build", "-ldflags", "-s -w", "-o", join(dir, "etcd"), "."], {
        caches: context.caches,
        cwd: moduleDir,
      });
    },
  });
  return join(tool.dir, "etcd");
}
