/**
 * Writes the API's description (openapi-document.ts) to services/runtime/gen/openapi.json, with
 * the generated code: `npm run generate` makes both, from proto/, and both edges serve the file
 * at `GET /openapi.json`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { publicServices } from "@commerce/runtime/contract";
import { createRouteTable } from "@commerce/edge/rest-mapping";
import { buildDescriptorSet } from "../contract-descriptors.js";
import { buildOpenApiDocument } from "./openapi-document.js";
import { createProtoComments } from "./proto-comments.js";

/** Where `npm run generate` writes the document. */
export const openApiFile = (repoRoot: string): string =>
  join(repoRoot, "services", "runtime", "gen", "openapi.json");

export async function writeOpenApiDocument(repoRoot: string): Promise<void> {
  const { version } = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
    version: string;
  };
  const comments = createProtoComments(await buildDescriptorSet(repoRoot, { sourceInfo: true }));
  const document = buildOpenApiDocument(createRouteTable(publicServices).routes, comments, { version });
  await writeFile(openApiFile(repoRoot), `${asciiJson(document)}\n`);
}

/**
 * JSON with every character of the Basic Multilingual Plane beyond ASCII escaped: the text
 * rules' patterns list control and invisible characters, which some readers of the document
 * (YAML parsers among them) refuse raw, and which no editor shows. Characters beyond it (the
 * tag characters) stay UTF-8: those readers refuse their escapes (surrogate pairs) instead.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\uffff]/gu,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
