/**
 * The fingerprint of a build step's inputs: a hash of each file's path and bytes, so that a step
 * run with `--if-stale` (scripts/generate.ts) is skipped while none of them changed.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Every file under `dir`, sorted; folders named in `skip` (node_modules, say) are not entered. */
export function filesUnder(dir: string, skip: readonly string[] = []): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter(
      (file) =>
        !relative(dir, file)
          .split("/")
          .some((part) => skip.includes(part)),
    )
    .sort();
}

/** A hex digest of the files' paths (relative to `root`) and contents, in the order given. */
export function fingerprintOf(root: string, files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(relative(root, file)).update("\0").update(readFileSync(file));
  return hash.digest("hex");
}
