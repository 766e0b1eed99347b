/**
 * Numbers reach the services only in plain decimal notation (ADR 0008).
 * Protobuf JSON, ours and Envoy's transcoder's alike, also reads numbers from
 * strings and through `Number()`, so `"0x10"` is 16 and the path id `1e0` is 1; both edges
 * check the notation first, with the same rules and messages (scripts/envoy/rest-filter.lua
 * holds the Lua twin of this file).
 */
import { ScalarType, type DescField } from "@bufbuild/protobuf";

/**
 * How a numeric field is written: "i" signed integer, "u" unsigned integer, "f" floating point;
 * the upper-case letters are the 64-bit integers, which proto3 JSON prints as strings, so a
 * body may also carry them as a string of plain decimal digits.
 */
export type NumberKind = "i" | "u" | "I" | "U" | "f";

export function numberKindOf(scalar: ScalarType): NumberKind | undefined {
  switch (scalar) {
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return "i";
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return "u";
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return "I";
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return "U";
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return "f";
    default:
      return undefined;
  }
}

/** The number kind of a scalar field or of the items of a repeated scalar field. */
export function numberKindOfField(field: DescField): NumberKind | undefined {
  if (field.fieldKind === "scalar") return numberKindOf(field.scalar);
  if (field.fieldKind === "list" && field.listKind === "scalar") return numberKindOf(field.scalar);
  return undefined;
}

const signed = /^(?:0|-?[1-9][0-9]*)$/;
const unsigned = /^(?:0|[1-9][0-9]*)$/;
const decimal = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/** Whether `text` is the plain decimal notation of a number of this kind. */
export function isPlainDecimal(text: string, kind: NumberKind): boolean {
  switch (kind) {
    case "i":
    case "I":
      return signed.test(text);
    case "u":
    case "U":
      return unsigned.test(text);
    case "f":
      return decimal.test(text);
  }
}

/** What each kind must look like, in refusals (the Envoy generator passes it to Lua too). */
export const numberShapes: Readonly<Record<NumberKind, string>> = {
  i: "an integer in plain decimal digits",
  I: "an integer in plain decimal digits",
  u: "a non-negative integer in plain decimal digits",
  U: "a non-negative integer in plain decimal digits",
  f: "a number in plain decimal notation",
};

/** The refusal of a path or query parameter. */
export function parameterNotation(name: string, kind: NumberKind): string {
  return `parameter "${name}" must be ${numberShapes[kind]}`;
}

/** The refusal of a JSON value: a JSON number is required (or, for 64-bit integers, a string). */
export function fieldNotation(key: string, kind: NumberKind): string {
  return `field "${key}" must be a JSON number: ${numberShapes[kind]}`;
}
