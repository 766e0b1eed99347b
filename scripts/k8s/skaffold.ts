/**
 * skaffold, built from the wrapper module in ./skaffold (its go.mod says why), and the JSON
 * schema of the skaffold.yaml version it reads, taken from the same module so the two agree.
 */
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, filesOf, type ArtifactOptions } from "../cache/cached-artifact.js";
import { moduleSourceDir, runGo } from "../cache/go-command.js";
import { kubeVersions } from "./kube-versions.js";

const moduleDir = join(import.meta.dirname, "skaffold");
const skaffoldModule = "github.com/GoogleContainerTools/skaffold/v2";

export interface Skaffold {
  readonly binary: string;
  /** The JSON schema of `apiVersion: skaffold/<kubeVersions.skaffoldSchema>`. */
  readonly schema: string;
}

/** The cached skaffold binary and its skaffold.yaml schema. */
export async function ensureSkaffold(options: ArtifactOptions = {}): Promise<Skaffold> {
  const schemaFile = `${kubeVersions.skaffoldSchema}.json`;
  const ldflags = `-s -w -X ${skaffoldModule}/pkg/skaffold/version.version=${kubeVersions.skaffold}`;
  const tool = await ensureArtifact(
    {
      name: `skaffold-${kubeVersions.skaffold}`,
      inputs: [ldflags, schemaFile, ...(await filesOf(moduleDir, ["go.mod", "go.sum"]))],
      build: async (dir) => {
        await runGo(
          ["build", "-ldflags", ldflags, "-o", join(dir, "skaffold"), `${skaffoldModule}/cmd/skaffold`],
          {
            cwd: moduleDir,
          },
        );
        const source = await moduleSourceDir(`${skaffoldModule}@${kubeVersions.skaffold}`);
        await copyFile(
          join(source, "docs-v2", "content", "en", "schemas", schemaFile),
          join(dir, schemaFile),
        );
      },
    },
    options,
  );
  return { binary: join(tool.dir, "skaffold"), schema: join(tool.dir, schemaFile) };
}
