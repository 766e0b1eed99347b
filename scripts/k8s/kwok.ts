/**
 * kwok, which plays the kubelet of fake nodes: it keeps their Node objects Ready and moves the
 * pods scheduled on them through their lifecycle according to its "stages". The stages are
 * those kwok ships as its fast profile (node initialisation, node heartbeat with a lease, pods
 * Ready at once), taken from its module's `kustomize/stage` so they match the binary.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { moduleSourceDir, runGo } from "../cache/go-command.js";
import { kubeVersions } from "./kube-versions.js";

const stageFolders = ["node/fast", "node/heartbeat-with-lease", "pod/fast"] as const;

export interface Kwok {
  readonly binary: string;
  /** One YAML file with every stage, for `kwok --config`. */
  readonly stages: string;
}

async function stageDocuments(moduleDir: string): Promise<string[]> {
  const documents: string[] = [];
  for (const folder of stageFolders) {
    const dir = join(moduleDir, "kustomize", "stage", folder);
    const files = (await readdir(dir)).filter(
      (file) => file.endsWith(".yaml") && file !== "kustomization.yaml",
    );
    for (const file of files.sort()) documents.push((await readFile(join(dir, file), "utf8")).trim());
  }
  return documents;
}

/** The cached kwok binary and its stage configuration. */
export async function ensureKwok(options: ArtifactOptions = {}): Promise<Kwok> {
  const tool = await ensureArtifact(
    {
      name: `kwok-${kubeVersions.kwok}`,
      inputs: [kubeVersions.kwok, ...stageFolders],
      build: async (dir) => {
        const module = `sigs.k8s.io/kwok@${kubeVersions.kwok}`;
        await runGo(["install", "-ldflags", "-s -w", `sigs.k8s.io/kwok/cmd/kwok@${kubeVersions.kwok}`], {
          cwd: dir,
          env: { GOBIN: dir },
        });
        const documents = await stageDocuments(await moduleSourceDir(module));
        await writeFile(join(dir, "stages.yaml"), `${documents.join("\n---\n")}\n`);
      },
    },
    options,
  );
  return { binary: join(tool.dir, "kwok"), stages: join(tool.dir, "stages.yaml") };
}
