/**
 * The typed client's types (client/): openapi-typescript turns the API's OpenAPI document
 * (services/runtime/gen/openapi.json, written just before) into `paths`, `components` and
 * `operations`, which openapi-fetch reads to type every call of `@commerce/client`. Generated, like
 * the rest of the code the contract makes, and not committed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from "openapi-typescript";
import { openApiFile } from "./openapi/write-openapi.js";

/** Where `npm run generate` writes the client's types. */
export const clientTypesFile = (repoRoot: string): string => join(repoRoot, "client", "gen", "openapi.ts");

export async function writeClientTypes(repoRoot: string): Promise<void> {
  const document = JSON.parse(await readFile(openApiFile(repoRoot), "utf8")) as OpenAPI3;
  const types = astToString(await openapiTS(document, { silent: true }));
  const file = clientTypesFile(repoRoot);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${COMMENT_HEADER}${types}`);
}
