/**
 * The contract as Envoy sees it: a descriptor set built by buf from proto/ (imports included),
 * which the transcoder loads at run time, and from which the generator reads every route and
 * option. Reading the very bytes Envoy will load keeps the two from disagreeing.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createFileRegistry, fromBinary, getOption, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { http } from "@commerce/runtime/gen/google/api/annotations_pb.js";
import { stageProtoDeps } from "./stage-deps.js";

const run = promisify(execFile);

/** The services that have REST routes, grouped by the deployment that hosts them. */
export interface Contract {
  /** The descriptor set (a serialized `google.protobuf.FileDescriptorSet`). */
  readonly descriptorSet: Uint8Array;
  /** Deployment name (`auth`, `user`, ...) → its services with `google.api.http` rules. */
  readonly deployments: ReadonlyMap<string, readonly DescService[]>;
}

/**
 * Builds the descriptor set of proto/ with buf (staging third-party imports first). Source info
 * (the comments) is for humans: Envoy needs none; the API's description reads it.
 */
export async function buildDescriptorSet(
  repoRoot: string,
  options: { readonly sourceInfo?: boolean } = {},
): Promise<Uint8Array> {
  stageProtoDeps(repoRoot);
  const scratch = await mkdtemp(join(tmpdir(), "commerce-descriptors-"));
  try {
    const out = join(scratch, "contract.binpb");
    const buf = join(repoRoot, "node_modules", ".bin", "buf");
    const flags = options.sourceInfo === true ? [] : ["--exclude-source-info"];
    await run(buf, ["build", ...flags, "-o", out], { cwd: repoRoot });
    return new Uint8Array(await readFile(out));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The deployment a service belongs to: the second part of its package
 * (`commerce.auth.v1.AuthService` → `auth`), the same unit that one service process hosts.
 */
export function deploymentOf(service: DescService): string {
  const name = service.typeName.split(".")[1];
  if (name === undefined || name === "")
    throw new Error(`${service.typeName} is not in a commerce.<name> package`);
  return name;
}

export function loadContract(descriptorSet: Uint8Array): Contract {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
  const deployments = new Map<string, DescService[]>();
  for (const type of registry) {
    if (type.kind !== "service" || !type.typeName.startsWith("commerce.")) continue;
    const routed = type.methods.some((method) => getOption(method, http).pattern.case !== undefined);
    if (!routed) continue;
    const name = deploymentOf(type);
    deployments.set(name, [...(deployments.get(name) ?? []), type]);
  }
  return { descriptorSet, deployments };
}
