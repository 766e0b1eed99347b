/**
 * What a request may contain, per route, for the REST filter's checks (rest-filter.lua): the
 * JSON keys each request message accepts, with the kind of value behind each key, and how the
 * route's body binds to the message. Derived from the descriptors, like the transcoder's own
 * view, so a new field or RPC needs no change here.
 *
 * Keys are accepted under the field's proto name and its JSON name, as protobuf JSON parsers
 * (the transcoder's and the local edge's) both do.
 */
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { numberKindOf } from "@commerce/edge/plain-decimal.js";
import type { Route } from "@commerce/edge/route-table.js";

/** A field kind as rest-filter.lua reads it (see the legend at the top of that file). */
export type FieldKind = string;

/** Message type name → accepted key → kind. */
export type MessageSchemas = ReadonlyMap<string, ReadonlyMap<string, FieldKind>>;

/** How a route's body becomes (part of) the request message. */
export type BodyBinding =
  | { readonly kind: "none" }
  /** An HttpBody field: the raw bytes and content type, no JSON. */
  | { readonly kind: "raw" }
  /** A JSON object of message `type` (body "*", or a message field). */
  | { readonly kind: "object"; readonly type: string }
  /** A JSON array of messages `type` (a repeated message field). */
  | { readonly kind: "array"; readonly type: string }
  /** Any other JSON value (a scalar or repeated scalar field). */
  | { readonly kind: "value" };

const httpBodyType = "google.api.HttpBody";

/** Well-known types have their own JSON forms (strings, numbers, any JSON): not scanned. */
function isWellKnown(message: DescMessage): boolean {
  return message.typeName.startsWith("google.protobuf.");
}

function kindOf(field: DescField): FieldKind {
  switch (field.fieldKind) {
    case "scalar": {
      const number = numberKindOf(field.scalar);
      if (number !== undefined) return `n${number}`;
      return field.scalar === ScalarType.BOOL ? "b" : "s";
    }
    case "enum":
      return "s";
    case "message":
      return isWellKnown(field.message) ? "w" : `m:${field.message.typeName}`;
    case "list":
      if (field.listKind === "message")
        return isWellKnown(field.message) ? "w" : `l:${field.message.typeName}`;
      if (field.listKind === "scalar") {
        const number = numberKindOf(field.scalar);
        if (number !== undefined) return `N${number}`;
        if (field.scalar === ScalarType.BOOL) return "B";
      }
      return "S";
    case "map":
      return field.mapKind === "message" && !isWellKnown(field.message) ? `M:${field.message.typeName}` : "M";
  }
}

export function bodyBinding(route: Route): BodyBinding {
  if (route.body === undefined) return { kind: "none" };
  const input = route.method.input;
  if (route.body === "*") return { kind: "object", type: input.typeName };
  const field = input.fields.find((f) => f.name === route.body);
  if (field === undefined) throw new Error(`${route.template}: body field "${route.body}" does not exist`);
  if (field.fieldKind === "message") {
    if (field.message.typeName === httpBodyType) return { kind: "raw" };
    return isWellKnown(field.message) ? { kind: "value" } : { kind: "object", type: field.message.typeName };
  }
  if (field.fieldKind === "list" && field.listKind === "message" && !isWellKnown(field.message)) {
    return { kind: "array", type: field.message.typeName };
  }
  return { kind: "value" };
}

/** The schemas of every request message of `routes` and of every message nested in them. */
export function messageSchemas(routes: readonly Route[]): MessageSchemas {
  const schemas = new Map<string, Map<string, FieldKind>>();
  const visit = (message: DescMessage): void => {
    if (schemas.has(message.typeName) || isWellKnown(message)) return;
    const keys = new Map<string, FieldKind>();
    schemas.set(message.typeName, keys);
    for (const field of message.fields) {
      const kind = kindOf(field);
      keys.set(field.name, kind);
      keys.set(field.jsonName, kind);
      if (field.message !== undefined) visit(field.message);
    }
  };
  for (const route of routes) visit(route.method.input);
  return schemas;
}
