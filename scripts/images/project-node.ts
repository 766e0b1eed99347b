/**
 * The Node.js that stands in for the official Node image when the Dockerfile is replayed
 * (image-replay.ts): the project's, the version `.node-version` states, from the project's cache
 * (scripts/cache/node-runtime.ts), whatever Node runs the replay itself. So a developer whose
 * machine has another Node still builds and runs the images on the Node they ship with.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureNodeRuntime } from "../cache/node-runtime.js";

export interface StandInNode {
  /** `major.minor.patch`, as an image tag names it. */
  readonly version: string;
  /** The `node` binary. */
  readonly binary: string;
}

/** The version `.node-version` states: the one place the project's Node version is written. */
export function projectNodeVersion(root: string): string {
  const version = readFileSync(join(root, ".node-version"), "utf8").trim();
  if (!/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`.node-version must hold one version, major.minor.patch; it holds "${version}"`);
  }
  return version;
}

/** The project's Node, installed into the cache first if needed, checked to be that version. */
export async function projectNode(root: string): Promise<StandInNode> {
  const version = projectNodeVersion(root);
  const binary = await ensureNodeRuntime();
  const actual = execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  if (actual !== `v${version}`) {
    throw new Error(`${binary} is Node ${actual}, but .node-version states ${version}`);
  }
  return { version, binary };
}
