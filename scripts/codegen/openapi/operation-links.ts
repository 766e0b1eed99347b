/**
 * OpenAPI links between operations, so that tools can follow a workflow (place an order, then
 * read it, pay it, move it): every field marked `id_of` in proto/ (field-contract.ts) is an id
 * of some kind of thing. An operation whose success response holds such an id, at the top or
 * in the first item of a list, links to every operation that takes an id of the same kind, as a
 * path parameter or a top-level body field.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { JsonSchema } from "./json-schema.js";
import { fieldContract } from "./field-contract.js";

/** Where an operation's success response holds an id of some kind. */
export interface IdSource {
  readonly kind: string;
  /** A JSON pointer into the response body. */
  readonly pointer: string;
}

/** Where an operation takes an id of some kind. */
export interface IdTarget {
  readonly kind: string;
  readonly operationId: string;
  readonly in: "path" | "body";
  /** The parameter's or the body field's name. */
  readonly name: string;
}

/** The ids a response message holds, with their pointers; `prefix` is the pointer of the message. */
export function idSources(message: DescMessage, prefix: string): IdSource[] {
  const sources: IdSource[] = [];
  for (const field of message.fields) {
    const pointer = `${prefix}/${field.jsonName}`;
    const kind = fieldContract(field).idOf;
    if (kind !== undefined)
      sources.push({ kind, pointer: field.fieldKind === "list" ? `${pointer}/0` : pointer });
    if (field.fieldKind === "list" && field.listKind === "message") {
      for (const nested of field.message.fields) {
        const nestedKind = fieldContract(nested).idOf;
        if (nestedKind !== undefined && nested.fieldKind !== "list")
          sources.push({ kind: nestedKind, pointer: `${pointer}/0/${nested.jsonName}` });
      }
    }
  }
  return sources;
}

/** The ids a bare-array response's items hold (`/0/<field>`). */
export function itemIdSources(item: DescMessage): IdSource[] {
  return item.fields.flatMap((field) => {
    const kind = fieldContract(field).idOf;
    return kind === undefined || field.fieldKind === "list"
      ? []
      : [{ kind, pointer: `/0/${field.jsonName}` }];
  });
}

/** The OpenAPI `links` of a response holding `sources`, to `targets` (never to itself). */
export function linksOf(
  operationId: string,
  sources: readonly IdSource[],
  targets: readonly IdTarget[],
): JsonSchema {
  const links: JsonSchema = {};
  for (const target of targets) {
    if (target.operationId === operationId) continue;
    const source = sources.find((s) => s.kind === target.kind);
    if (source === undefined) continue;
    const value = `$response.body#${source.pointer}`;
    links[target.operationId] = {
      operationId: target.operationId,
      description: `The ${target.kind} id this response holds, as ${target.operationId}'s ${target.name}.`,
      ...(target.in === "path"
        ? { parameters: { [target.name]: value } }
        : { requestBody: { [target.name]: value } }),
    };
  }
  return links;
}
