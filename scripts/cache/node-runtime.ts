/**
 * The Node.js the project runs on (the version in .node-version), from the project's cache:
 * ensure-node.sh installs it, here and in CI, where it runs before anything else.
 */
import { join } from "node:path";
import { runInstallCommand } from "./install-command.js";

const script = join(import.meta.dirname, "ensure-node.sh");

/** The `node` binary of the project's Node.js version, installed first if the cache lacks it. */
export async function ensureNodeRuntime(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const bin = await runInstallCommand(script, [], { missing: "bash is needed to install Node.js", env });
  return join(bin.trim(), "node");
}
