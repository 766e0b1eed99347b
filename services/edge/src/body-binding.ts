/**
 * How a route's body binds to its request message (its google.api.http `body`), as both edges'
 * transcoding reads it and as the API's description describes it.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { Route } from "./route-table.js";

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

/** Well-known types have their own JSON forms (strings, numbers, any JSON). */
function isWellKnown(message: DescMessage): boolean {
  return message.typeName.startsWith("google.protobuf.");
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
