/**
 * Numbers reach the services only in plain decimal notation (ADR 0008).
 * Protobuf JSON, ours and Envoy's transcoder's alike, also reads numbers from
 * strings and through `Number()`, so `"0x10"` is 16 and the path id `1e0` is 1; both edges
 * check the notation first, with the same rules and messages (envoy/filters/rest-filter.lua
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

/**
 * The notation of each kind, the one definition both edges apply: the local edge here, Envoy's
 * REST filter from the table the generator writes into it (envoy/src/lua-source.ts), with the
 * same walk (`plain_decimal` in envoy/filters/rest-filter.lua). Digits without a leading zero;
 * a minus sign where `sign` (never on an integer zero); a fraction where `fraction`; never an
 * exponent or "+".
 */
export const numberNotations: Readonly<
  Record<NumberKind, { readonly sign: boolean; readonly fraction: boolean; readonly shape: string }>
> = {
  i: { sign: true, fraction: false, shape: "an integer in plain decimal digits" },
  I: { sign: true, fraction: false, shape: "an integer in plain decimal digits" },
  u: { sign: false, fraction: false, shape: "a non-negative integer in plain decimal digits" },
  U: { sign: false, fraction: false, shape: "a non-negative integer in plain decimal digits" },
  f: { sign: true, fraction: true, shape: "a number in plain decimal notation" },
};

const digitsThenRest = /^([0-9]+)(.*)$/s;
const fractionPart = /^\.[0-9]+$/;

/** Whether `text` is the plain decimal notation of a number of this kind. */
export function isPlainDecimal(text: string, kind: NumberKind): boolean {
  const { sign, fraction } = numberNotations[kind];
  const negative = sign && text.startsWith("-");
  const [, whole, rest] = digitsThenRest.exec(negative ? text.slice(1) : text) ?? [];
  if (whole === undefined || rest === undefined) return false;
  if (whole.length > 1 && whole.startsWith("0")) return false;
  if (rest === "") return !(negative && whole === "0" && !fraction);
  return fraction && fractionPart.test(rest);
}

/** The refusal of a path or query parameter. */
export function parameterNotation(name: string, kind: NumberKind): string {
  return `parameter "${name}" must be ${numberNotations[kind].shape}`;
}

/** The refusal of a JSON value: a JSON number is required (or, for 64-bit integers, a string). */
export function fieldNotation(key: string, kind: NumberKind): string {
  return `field "${key}" must be a JSON number: ${numberNotations[kind].shape}`;
}
