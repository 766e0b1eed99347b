/**
 * `npm run k8s:control-plane`: a private control plane in the foreground (tools built first if
 * the cache lacks them), for trying charts by hand. Prints the `KUBECONFIG=` line to use; Ctrl-C
 * stops it and removes its folder.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startControlPlane } from "./control-plane.js";

const dataDir = await mkdtemp(join(tmpdir(), "commerce-control-plane-"));
const plane = await startControlPlane({ dataDir, nodes: 3 });
process.stdout.write(`KUBECONFIG=${plane.kubeconfig}\n`);
process.stderr.write(
  `nodes: ${plane.nodeNames.join(", ")}; logs in ${join(dataDir, "logs")}; Ctrl-C stops it\n`,
);
// The components' handles do not hold this process (they stop when it exits): this timer does.
const keepAlive = setInterval(() => undefined, 60_000);
const shutdown = async () => {
  clearInterval(keepAlive);
  await plane.stop();
  await rm(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGINT", () => void shutdown());
process.once("SIGTERM", () => void shutdown());
