/**
 * `npm run generate`: the one command that turns proto/ into code.
 *   1. stages third-party imports under .build/proto-deps (scripts/codegen/stage-deps.ts);
 *   2. `buf generate` writes TypeScript to services/runtime/gen (not committed);
 *   3. the API's description, OpenAPI 3.1, from the routes of that code and the comments of
 *      proto/, to services/runtime/gen/openapi.json (scripts/codegen/openapi), and the third-party
 *      files of its reference page to services/edge/site/docs/vendor (scripts/codegen/docs-vendor.ts);
 *   4. the typed client's types, from that document, to client/gen/openapi.ts
 *      (scripts/codegen/client-types.ts);
 *   5. the web app (web/), bundled into services/edge/site/app with its JavaScript budget
 *      checked (scripts/web-app/build-web-app.ts).
 * With --if-stale (run before `npm start` and `npm test`) it does nothing when the inputs'
 * fingerprint matches the one recorded by the last run; the web app has its own, so a change to
 * the app rebuilds only the app. Runs started at once (`npm start` and
 * `npm test` side by side) take turns on a lock (scripts/cache/file-lock.ts): the second finds
 * the code the first generated.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { withFileLock } from "./cache/file-lock.js";
import { filesUnder, fingerprintOf } from "./cache/input-fingerprint.js";
import { copyDocsVendorFiles } from "./codegen/docs-vendor.js";
import { stageProtoDeps } from "./codegen/stage-deps.js";
import { buildWebApp, isWebAppBuilt, webAppFingerprint } from "./web-app/build-web-app.js";

const root = join(import.meta.dirname, "..");
const genDir = join(root, "services", "runtime", "gen");
const stampFile = join(genDir, ".fingerprint");

function fingerprint(): string {
  return fingerprintOf(root, [
    ...filesUnder(join(root, "proto")),
    ...filesUnder(join(root, "scripts", "codegen")),
    join(root, "buf.yaml"),
    join(root, "buf.gen.yaml"),
    join(root, "package-lock.json"),
  ]);
}

const ifStale = process.argv.includes("--if-stale");
const current = fingerprint();
const upToDate = (): boolean => existsSync(stampFile) && readFileSync(stampFile, "utf8") === current;

if (!(ifStale && upToDate() && isWebAppBuilt(root, webAppFingerprint(root)))) {
  mkdirSync(join(root, ".build"), { recursive: true });
  await withFileLock(join(root, ".build", "generate.lock"), async () => {
    if (!(ifStale && upToDate())) {
      stageProtoDeps(root);
      const buf = join(root, "node_modules", ".bin", "buf");
      execFileSync(buf, ["generate"], { cwd: root, stdio: "inherit" });
      // buf generates imports too; buf.validate comes from @bufbuild/protovalidate (rewrite_imports).
      rmSync(join(genDir, "buf"), { recursive: true, force: true });
      // Imported now: it reads the code just generated.
      const { writeOpenApiDocument } = await import("./codegen/openapi/write-openapi.js");
      await writeOpenApiDocument(root);
      // The typed client (client/) is typed from the document just written.
      const { writeClientTypes } = await import("./codegen/client-types.js");
      await writeClientTypes(root);
      copyDocsVendorFiles(root);
      writeFileSync(stampFile, current);
      console.log(`generated ${filesUnder(genDir).length - 1} files into ${relative(root, genDir)}`);
    }
    // Taken after the client's types were written: the app is compiled against them.
    const app = webAppFingerprint(root);
    if (!(ifStale && isWebAppBuilt(root, app))) await buildWebApp(root, app);
  });
}
