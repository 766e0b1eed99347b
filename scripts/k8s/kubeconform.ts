/**
 * kubeconform and the strict schemas it validates our manifests against, made from the OpenAPI
 * spec that the Kubernetes module of the control plane's version ships
 * (`api/openapi-spec/swagger.json`), so validation and the API server agree on one version.
 * Nothing is fetched at validation time: kubeconform reads the schemas from the cache.
 */
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ensureCachedTool, type ToolBuildContext } from "./cached-tool.js";
import { moduleSourceDir, runGo } from "./go-command.js";
import { kubeconformSchemas, type OpenApiSpec } from "./kube-schemas.js";
import { kubeVersions } from "./kube-versions.js";

export interface Kubeconform {
  readonly binary: string;
  /**
   * The arguments that make kubeconform validate strictly against the cached schemas of our
   * Kubernetes version and nothing else (an unknown kind fails rather than being skipped).
   */
  readonly args: readonly string[];
}

async function ensureKubeconformBinary(context: ToolBuildContext): Promise<string> {
  const tool = await ensureCachedTool(context, {
    name: `kubeconform-${kubeVersions.kubeconform}`,
    inputs: [kubeVersions.kubeconform],
    build: async (dir) => {
      const command = `github.com/yannh/kubeconform/cmd/kubeconform@${kubeVersions.kubeconform}`;
      await runGo(["install", "-ldflags", "-s -w", command], {
        caches: context.caches,
        cwd: dir,
        env: { GOBIN: dir },
      });
    },
  });
  return join(tool.dir, "kubeconform");
}

async function ensureSchemas(context: ToolBuildContext): Promise<string> {
  const converter = await readFile(join(import.meta.dirname, "kube-schemas.ts"));
  const tool = await ensureCachedTool(context, {
    name: `kube-schemas-${kubeVersions.kubernetes}`,
    inputs: [kubeVersions.kubernetes, converter],
    build: async (dir) => {
      const source = await moduleSourceDir(context.caches, `k8s.io/kubernetes@${kubeVersions.kubernetes}`);
      const spec = JSON.parse(
        await readFile(join(source, "api", "openapi-spec", "swagger.json"), "utf8"),
      ) as OpenApiSpec;
      // kubeconform's own layout for a schema folder: <version>-standalone-strict/<kind>-<group>-<version>.json
      const folder = join(dir, `${kubeVersions.kubernetes}-standalone-strict`);
      await mkdir(folder);
      for (const [file, schema] of kubeconformSchemas(spec)) {
        await writeFile(join(folder, file), JSON.stringify(schema));
      }
    },
  });
  return tool.dir;
}

/** kubeconform and the arguments for strict validation against Kubernetes `kubeVersions.kubernetes`. */
export async function ensureKubeconform(context: ToolBuildContext): Promise<Kubeconform> {
  const binary = await ensureKubeconformBinary(context);
  const schemas = await ensureSchemas(context);
  return {
    binary,
    args: [
      "-strict",
      "-summary",
      "-kubernetes-version",
      kubeVersions.kubernetes.slice(1),
      "-schema-location",
      schemas,
    ],
  };
}
