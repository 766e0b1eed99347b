/**
 * The web app's build, a step of `npm run generate` (scripts/generate.ts): Vite bundles web/
 * into services/edge/site/app (not committed), which both edges serve at `/`
 * (services/edge/src/web-app-files.ts). It prints the first page's JavaScript, compressed, and
 * fails when that is over its budget (first-page-javascript.ts).
 *
 * Like the code generated from proto/, generate.ts skips the build with `--if-stale` while its
 * inputs' fingerprint is the one it recorded: the app's sources, the typed client it calls the
 * API with (and the types generated for it), the lockfile and this folder.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Rolldown, build as viteBuild } from "vite";
import { filesUnder, fingerprintOf } from "../cache/input-fingerprint.js";
import { describeFirstPage, measureFirstPage, withinBudget } from "./first-page-javascript.js";

/** Where the built app goes, relative to the repository: the edge's site folder. */
export const webAppOutput = join("services", "edge", "site", "app");

const stampOf = (root: string): string => join(root, webAppOutput, ".fingerprint");

/** The fingerprint of the app's inputs as they are now. */
export function webAppFingerprint(root: string): string {
  return fingerprintOf(root, [
    ...filesUnder(join(root, "web"), ["node_modules"]),
    ...filesUnder(join(root, "client"), ["node_modules"]),
    ...filesUnder(import.meta.dirname),
    join(root, "package-lock.json"),
  ]);
}

/** Whether the built app is there and was built from inputs with this fingerprint. */
export function isWebAppBuilt(root: string, fingerprint: string): boolean {
  const stamp = stampOf(root);
  return existsSync(stamp) && readFileSync(stamp, "utf8") === fingerprint;
}

/** Builds the app, prints its first page's JavaScript and throws when that is over budget. */
export async function buildWebApp(root: string, fingerprint: string): Promise<void> {
  const started = Date.now();
  // Imported here: loading Vite costs a moment that a start with nothing to build skips.
  const { build } = await import("vite");
  const output = await build({
    configFile: false,
    root: join(root, "web"),
    base: "/",
    logLevel: "warn",
    clearScreen: false,
    publicDir: false,
    build: {
      outDir: join(root, webAppOutput),
      emptyOutDir: true,
      // The pages' security policy allows images from our origin only: no data: URLs.
      assetsInlineLimit: 0,
      // Every browser the app supports preloads modules itself: no polyfill in the entry.
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
    },
  });
  const measured = measureFirstPage(chunksOf(output));
  const line = `built the web app into ${webAppOutput} in ${Date.now() - started} ms; ${describeFirstPage(measured)}`;
  if (!withinBudget(measured)) throw new Error(`over budget: ${line}`);
  console.log(line);
  writeFileSync(stampOf(root), fingerprint);
}

function chunksOf(output: Awaited<ReturnType<typeof viteBuild>>): Rolldown.OutputChunk[] {
  if (!("output" in output) && !Array.isArray(output)) throw new Error("the web app's build is watching");
  const outputs: Rolldown.RolldownOutput[] = Array.isArray(output) ? output : [output];
  return outputs.flatMap((one) => one.output.filter((item) => item.type === "chunk"));
}
