/**
 * OpenAPI links between operations, so that tools can follow a workflow (place an order, then
 * read it, pay it, move it): every field marked `id_of` or `same_as` in proto/
 * (field-contract.ts) stands for something: an id of some kind of thing, or a value such as an
 * order's total. An operation whose success response holds one, at the top or in the first item
 * of a list, links to every operation that takes the same, as a path parameter or a top-level
 * body field (a link with several body fields sets them together).
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
    const kind = fieldContract(field).linksAs;
    if (kind !== undefined)
      sources.push({ kind, pointer: field.fieldKind === "list" ? `${pointer}/0` : pointer });
    if (field.fieldKind === "list" && field.listKind === "message") {
      for (const nested of field.message.fields) {
        const nestedKind = fieldContract(nested).linksAs;
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
    const kind = fieldContract(field).linksAs;
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
  const links = new Map<
    string,
    { parameters: Record<string, string>; body: Record<string, string>; what: string[] }
  >();
  for (const target of targets) {
    if (target.operationId === operationId) continue;
    const source = sources.find((s) => s.kind === target.kind);
    if (source === undefined) continue;
    const link = links.get(target.operationId) ?? { parameters: {}, body: {}, what: [] };
    links.set(target.operationId, link);
    (target.in === "path" ? link.parameters : link.body)[target.name] = `$response.body#${source.pointer}`;
    link.what.push(`the ${target.kind} as ${target.name}`);
  }
  return Object.fromEntries(
    [...links].map(([target, link]) => [
      target,
      {
        operationId: target,
        description: `${target}, given ${link.what.join(" and ")} from this response.`,
        ...(Object.keys(link.parameters).length === 0 ? {} : { parameters: link.parameters }),
        ...(Object.keys(link.body).length === 0 ? {} : { requestBody: link.body }),
      },
    ]),
  );
}
