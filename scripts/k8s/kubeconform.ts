/**
 * kubeconform and the strict schemas it validates our manifests against, made from the OpenAPI
 * spec that the Kubernetes module of the control plane's version ships
 * (`api/openapi-spec/swagger.json`), so validation and the API server agree on one version.
 * Nothing is fetched at validation time: kubeconform reads the schemas from the cache.
 */
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { moduleSourceDir, runGo } from "../cache/go-command.js";
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

async function ensureKubeconformBinary(options: ArtifactOptions = {}): Promise<string> {
  // The version its release build stamps in (otherwise `kubeconform -v` says "development").
  const ldflags = `-s -w -X main.version=${kubeVersions.kubeconform}`;
  const tool = await ensureArtifact(
    {
      name: `kubeconform-${kubeVersions.kubeconform}`,
      inputs: [ldflags],
      build: async (dir) => {
        const command = `github.com/yannh/kubeconform/cmd/kubeconform@${kubeVersions.kubeconform}`;
        await runGo(["install", "-ldflags", ldflags, command], {
          cwd: dir,
          env: { GOBIN: dir },
        });
      },
    },
    options,
  );
  return join(tool.dir, "kubeconform");
}

async function ensureSchemas(options: ArtifactOptions = {}): Promise<string> {
  const converter = await readFile(join(import.meta.dirname, "kube-schemas.ts"));
  const tool = await ensureArtifact(
    {
      name: `kube-schemas-${kubeVersions.kubernetes}`,
      inputs: [kubeVersions.kubernetes, converter],
      build: async (dir) => {
        const source = await moduleSourceDir(`k8s.io/kubernetes@${kubeVersions.kubernetes}`);
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
    },
    options,
  );
  return tool.dir;
}

/** kubeconform and the arguments for strict validation against Kubernetes `kubeVersions.kubernetes`. */
export async function ensureKubeconform(options: ArtifactOptions = {}): Promise<Kubeconform> {
  const binary = await ensureKubeconformBinary(options);
  const schemas = await ensureSchemas(options);
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
