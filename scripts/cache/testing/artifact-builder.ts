/**
 * One process of the cross-process specs of cached-artifact.ts: ensures the artifact
 * `sample-1` under the root given as its first argument, with a build that records itself in
 * `<root>/builds.log`, waits `BUILD_MS` (so that concurrent requests overlap) and writes
 * `payload`; fails instead when `FAIL_BUILD` is set. Prints the artifact's folder on stdout
 * and `building` on stderr once its build has started.
 */
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureArtifact } from "../cached-artifact.js";

const root = process.argv[2];
if (root === undefined) throw new Error("usage: artifact-builder.ts <root>");
const buildMs = Number(process.env["BUILD_MS"] ?? "300");

const artifact = await ensureArtifact(
  {
    name: "sample-1",
    inputs: ["a"],
    build: async (dir) => {
      await appendFile(join(root, "builds.log"), `${process.pid}\n`);
      process.stderr.write("building\n");
      await delay(buildMs);
      if (process.env["FAIL_BUILD"] !== undefined) throw new Error("the build failed on purpose");
      await writeFile(join(dir, "payload"), "made");
    },
  },
  { root, log: () => undefined },
);
process.stdout.write(`${artifact.dir}\n`);
