/**
 * Finds the first number of a JSON request body that is not in plain decimal notation
 * (plain-decimal.ts), in document order: a numeric field must hold a JSON number literal without
 * exponent (integers without fraction, unsigned ones without sign), or null; 64-bit integers
 * may also be a string of plain decimal digits. `JSON.parse` loses how a literal was written
 * (`1e1`, `1.0` and `10` are one number), so this walks the text itself, guided by the schema,
 * after `JSON.parse` has accepted it: the text is known to be valid JSON.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { fieldNotation, isPlainDecimal, numberKindOfField, type NumberKind } from "./plain-decimal.js";

/** What a JSON value must be; undefined: anything (this check has nothing to say about it). */
export type Expected =
  | { readonly kind: "message"; readonly message: DescMessage }
  | { readonly kind: "list"; readonly item: Expected }
  | { readonly kind: "number"; readonly number: NumberKind }
  | undefined;

const isWellKnown = (message: DescMessage): boolean => message.typeName.startsWith("google.protobuf.");

/** What the JSON value of `field` must be. */
export function expectedOfField(field: DescField): Expected {
  const number = numberKindOfField(field);
  if (number !== undefined) {
    const item: Expected = { kind: "number", number };
    return field.fieldKind === "list" ? { kind: "list", item } : item;
  }
  if (field.fieldKind === "message" && !isWellKnown(field.message))
    return { kind: "message", message: field.message };
  if (field.fieldKind === "list" && field.listKind === "message" && !isWellKnown(field.message))
    return { kind: "list", item: { kind: "message", message: field.message } };
  return undefined;
}

const holdsNumbers = new WeakMap<DescMessage, boolean>();

/** Whether a value of `expected` can contain a number at all (most bodies cannot: skipped). */
function mayHoldNumbers(expected: Expected): boolean {
  if (expected === undefined) return false;
  if (expected.kind === "number") return true;
  if (expected.kind === "list") return mayHoldNumbers(expected.item);
  const known = holdsNumbers.get(expected.message);
  if (known !== undefined) return known;
  holdsNumbers.set(expected.message, false); // a recursive message adds nothing new
  const found = expected.message.fields.some((field) => mayHoldNumbers(expectedOfField(field)));
  holdsNumbers.set(expected.message, found);
  return found;
}

/** The first notation problem of `body` (valid JSON, UTF-8) read as `expected`, or undefined. */
export function bodyNumberProblem(body: Buffer, expected: Expected): string | undefined {
  if (!mayHoldNumbers(expected)) return undefined;
  const scan = new BodyScan(body.toString("utf8"));
  scan.value(scan.skipSpace(0), expected, "");
  return scan.problem;
}

const numberToken = /-?[0-9][0-9.eE+-]*/y;

class BodyScan {
  problem: string | undefined;

  constructor(private readonly text: string) {}

  skipSpace(i: number): number {
    let at = i;
    for (;;) {
      const c = this.text.charCodeAt(at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
      at += 1;
    }
  }

  /** Scans the value at `i`; returns the position after it. */
  value(i: number, expected: Expected, key: string): number {
    const c = this.text.charCodeAt(i);
    if (expected?.kind === "number" && (c === 0x7b || c === 0x5b))
      this.note(fieldNotation(key, expected.number));
    if (c === 0x7b /* { */)
      return this.object(i, expected?.kind === "message" ? expected.message : undefined);
    if (c === 0x5b /* [ */) return this.array(i, expected?.kind === "list" ? expected.item : undefined, key);
    if (c === 0x22 /* " */) {
      const end = this.stringEnd(i);
      if (expected?.kind === "number") {
        const wide = expected.number === "I" || expected.number === "U";
        if (!wide || !isPlainDecimal(this.text.slice(i + 1, end - 1), expected.number))
          this.note(fieldNotation(key, expected.number));
      }
      return end;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      numberToken.lastIndex = i;
      numberToken.exec(this.text);
      const end = numberToken.lastIndex;
      if (expected?.kind === "number" && !isPlainDecimal(this.text.slice(i, end), expected.number))
        this.note(fieldNotation(key, expected.number));
      return end;
    }
    // true, false or null
    if (expected?.kind === "number" && c !== 0x6e /* n */) this.note(fieldNotation(key, expected.number));
    return i + (c === 0x66 /* f */ ? 5 : 4);
  }

  private object(i: number, message: DescMessage | undefined): number {
    let at = this.skipSpace(i + 1);
    if (this.text.charCodeAt(at) === 0x7d /* } */) return at + 1;
    for (;;) {
      const keyEnd = this.stringEnd(at);
      const key = JSON.parse(this.text.slice(at, keyEnd)) as string;
      const field = message?.fields.find((f) => f.name === key || f.jsonName === key);
      at = this.skipSpace(this.skipSpace(keyEnd) + 1); // past ":"
      at = this.skipSpace(this.value(at, field === undefined ? undefined : expectedOfField(field), key));
      if (this.text.charCodeAt(at) === 0x7d) return at + 1;
      at = this.skipSpace(at + 1); // past ","
    }
  }

  private array(i: number, item: Expected, key: string): number {
    let at = this.skipSpace(i + 1);
    if (this.text.charCodeAt(at) === 0x5d /* ] */) return at + 1;
    for (;;) {
      at = this.skipSpace(this.value(at, item, key));
      if (this.text.charCodeAt(at) === 0x5d) return at + 1;
      at = this.skipSpace(at + 1); // past ","
    }
  }

  /** The position after the string that starts at `i` (a quote). */
  private stringEnd(i: number): number {
    let at = i + 1;
    for (;;) {
      const c = this.text.charCodeAt(at);
      if (c === 0x22) return at + 1;
      at += c === 0x5c /* \ */ ? 2 : 1;
    }
  }

  private note(problem: string): void {
    this.problem ??= problem;
  }
}
