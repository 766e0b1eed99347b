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
import { numberKindOf, type Route } from "@commerce/edge/rest-mapping";

/** A field kind as rest-filter.lua reads it (see the legend at the top of that file). */
export type FieldKind = string;

/** Message type name → accepted key → kind. */
export type MessageSchemas = ReadonlyMap<string, ReadonlyMap<string, FieldKind>>;

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
