/**
 * The API reference page's third-party files (Swagger UI's bundle, its styles and their
 * licences), copied from the swagger-ui-dist package into services/edge/site/docs/vendor by
 * `npm run generate`, so that the page loads nothing from outside and nothing third-party is
 * committed (services/edge/src/public-site.ts serves them).
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const files = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "swagger-ui-bundle.js.LICENSE.txt"];

export function copyDocsVendorFiles(repoRoot: string): void {
  const from = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const to = join(repoRoot, "services", "edge", "site", "docs", "vendor");
  mkdirSync(to, { recursive: true });
  for (const file of files) copyFileSync(join(from, file), join(to, file));
}
