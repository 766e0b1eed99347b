/**
 * Turns the Kubernetes OpenAPI (v2) spec into kubeconform's strict, standalone JSON schemas:
 * one file per kind and API version, named as kubeconform looks them up
 * (`<kind>-<first label of the group>-<version>.json`, `<kind>-<version>.json` for the core
 * group), each carrying the definitions it refers to.
 *
 * "Strict" as kubeconform means it: an object with declared properties admits no other
 * property, so a misspelt or misplaced field in a manifest fails validation instead of being
 * dropped silently by the API server. Like the API server's own decoding, every field may be
 * null, an int-or-string admits both, and a quantity admits a number (`cpu: 1`).
 */

/** A schema of the API server's OpenAPI document; only what the conversion reads is typed. */
export interface OpenApiSchema {
  readonly $ref?: string;
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly additionalProperties?: OpenApiSchema | boolean;
  readonly items?: OpenApiSchema;
  readonly required?: readonly string[];
  readonly "x-kubernetes-group-version-kind"?: readonly GroupVersionKind[];
}

export interface OpenApiSpec {
  readonly definitions: Readonly<Record<string, OpenApiSchema>>;
}

interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

type JsonSchema = Record<string, unknown>;

const definitionPrefix = "#/definitions/";
const quantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const nullable = (type: string): readonly string[] => [type, "null"];

/** The JSON schema of one spec schema, with `$ref`s left pointing at `#/definitions/`. */
function strictSchema(schema: OpenApiSchema): JsonSchema {
  if (schema.$ref !== undefined) return { $ref: schema.$ref };
  if (schema.format === "int-or-string") {
    return { oneOf: [{ type: nullable("string") }, { type: "integer" }] };
  }
  const result: JsonSchema = {};
  if (schema.type !== undefined) result["type"] = nullable(schema.type);
  if (schema.format !== undefined) result["format"] = schema.format;
  if (schema.required !== undefined) result["required"] = schema.required;
  if (schema.items !== undefined) result["items"] = strictSchema(schema.items);
  if (schema.properties !== undefined) {
    result["properties"] = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => [name, strictSchema(property)]),
    );
  }
  if (typeof schema.additionalProperties === "object") {
    result["additionalProperties"] = strictSchema(schema.additionalProperties);
  } else if (schema.additionalProperties !== undefined) {
    result["additionalProperties"] = schema.additionalProperties;
  } else if (schema.properties !== undefined) {
    result["additionalProperties"] = false;
  }
  return result;
}

function definitionSchema(name: string, schema: OpenApiSchema): JsonSchema {
  if (name === quantity) return { oneOf: [{ type: nullable("string") }, { type: "number" }] };
  return strictSchema(schema);
}

/** The names of the definitions `schema` refers to, directly or not. */
function referencedDefinitions(spec: OpenApiSpec, root: OpenApiSchema): Set<string> {
  const found = new Set<string>();
  const visit = (schema: OpenApiSchema): void => {
    if (schema.$ref !== undefined) {
      const name = schema.$ref.slice(definitionPrefix.length);
      const target = spec.definitions[name];
      if (found.has(name) || target === undefined) return;
      found.add(name);
      visit(target);
      return;
    }
    if (schema.items !== undefined) visit(schema.items);
    if (typeof schema.additionalProperties === "object") visit(schema.additionalProperties);
    for (const property of Object.values(schema.properties ?? {})) visit(property);
  };
  visit(root);
  return found;
}

/** kubeconform's file name for a kind (its `{{ .ResourceKind }}{{ .KindSuffix }}.json`). */
export function schemaFileName({ group, version, kind }: GroupVersionKind): string {
  const groupSuffix = group === "" ? "" : `-${group.split(".")[0] ?? group}`;
  return `${kind}${groupSuffix}-${version}.json`.toLowerCase();
}

/**
 * The schema files for every kind the OpenAPI document defines, by file name. A kind that it lists
 * under several groups whose names start alike keeps the first definition found.
 */
export function kubeconformSchemas(spec: OpenApiSpec): Map<string, JsonSchema> {
  const files = new Map<string, JsonSchema>();
  for (const [name, schema] of Object.entries(spec.definitions)) {
    for (const groupVersionKind of schema["x-kubernetes-group-version-kind"] ?? []) {
      const file = schemaFileName(groupVersionKind);
      if (files.has(file)) continue;
      const definitions = Object.fromEntries(
        [...referencedDefinitions(spec, schema)].map((referenced) => [
          referenced,
          definitionSchema(referenced, spec.definitions[referenced] ?? {}),
        ]),
      );
      files.set(file, { ...definitionSchema(name, schema), definitions });
    }
  }
  return files;
}
