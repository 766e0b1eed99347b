/**
 * `npm run images -- context`: lists what `docker build .` would send (the build context as
 * `.dockerignore` leaves it) and its size.
 * `npm run images -- replay <target> <folder>`: builds a target of the Dockerfile without Docker
 * into a folder (image-replay.ts), on the project's Node (project-node.ts), and prints its
 * configuration, for a look at what an image holds.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { listBuildContext } from "./build-context.js";
import { parseDockerfile } from "./dockerfile.js";
import { createImageReplay } from "./image-replay.js";
import { projectNode } from "./project-node.js";

const root = join(import.meta.dirname, "..", "..");
const [command, target, folder] = process.argv.slice(2);

if (command === "context") {
  const entries = listBuildContext(root);
  for (const entry of entries) process.stdout.write(`${String(entry.bytes).padStart(9)}  ${entry.path}\n`);
  const bytes = entries.reduce((n, entry) => n + entry.bytes, 0);
  process.stdout.write(`${entries.length} files, ${(bytes / 1024).toFixed(0)} KiB\n`);
} else if (command === "replay" && target !== undefined && folder !== undefined) {
  const scratchDir = resolve(folder);
  mkdirSync(scratchDir, { recursive: true });
  const replay = createImageReplay({
    dockerfile: parseDockerfile(readFileSync(join(root, "Dockerfile"), "utf8")),
    contextDir: root,
    scratchDir,
    node: await projectNode(root),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const image = await replay.replay(target);
  process.stdout.write(
    `${JSON.stringify(
      {
        ...image,
        env: Object.fromEntries(image.env),
        labels: Object.fromEntries(image.labels),
      },
      null,
      2,
    )}\n`,
  );
} else {
  process.stderr.write("usage: npm run images -- context | replay <target> <folder>\n");
  process.exit(2);
}
