/** A JSON Schema (2020-12, as OpenAPI 3.1 embeds it) or any other object of the document. */
export type JsonSchema = Record<string, unknown>;

/** A copy of `schema` without the keywords named. */
export function withoutKeywords(schema: JsonSchema, ...names: readonly string[]): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([name]) => !names.includes(name)));
}
