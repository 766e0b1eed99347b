/**
 * The contract's text rules (proto/commerce/options/v1/text.proto: `single_line`,
 * `multi_line`) as JSON Schema patterns, for the API's description. The rules are CEL
 * expressions that protovalidate runs in every service; JSON Schema needs a regular expression
 * that every validator and generator reads alike (ECMAScript and Python's `re`), so the refused
 * characters are listed here as literal characters and ranges, without `\p{…}` classes or
 * `\u{…}` escapes. text-patterns.spec.ts holds the two to the same verdict, character by
 * character, so they cannot drift apart.
 */

/** Code point ranges (inclusive) that every text rule refuses. */
const invisible: readonly (readonly [number, number])[] = [
  [0x2028, 0x2029], // line and paragraph separators
  [0xad, 0xad], // soft hyphen
  [0x61c, 0x61c], // Arabic letter mark
  [0x180e, 0x180e], // Mongolian vowel separator
  [0x200b, 0x200b], // zero-width space
  [0x200e, 0x200f], // left-to-right and right-to-left marks
  [0x202a, 0x202e], // bidirectional embeddings and overrides
  [0x2060, 0x206f], // word joiner, invisible operators, isolates, deprecated formatting
  [0xfeff, 0xfeff], // byte order mark
  [0xfff9, 0xfffb], // interlinear annotations
  [0xe0000, 0xe007f], // tag characters
];

/** `single_line`: every control character (C0, DEL, C1) too. */
const singleLine = [[0x0, 0x1f], [0x7f, 0x9f], ...invisible] as const;

/** `multi_line`: controls but line feed (U+000A) and tab (U+0009). */
const multiLine = [[0x0, 0x8], [0xb, 0x1f], [0x7f, 0x9f], ...invisible] as const;

function literal(codePoint: number): string {
  const char = String.fromCodePoint(codePoint);
  // Characters with a meaning inside a class are escaped; every other one stands for itself.
  return /[\\\]^-]/.test(char) ? `\\${char}` : char;
}

/** A pattern that matches a whole string without any of `ranges`. */
function withoutAny(ranges: readonly (readonly [number, number])[]): string {
  const items = ranges.map(([from, to]) => (from === to ? literal(from) : `${literal(from)}-${literal(to)}`));
  return `^[^${items.join("")}]*$`;
}

/** The pattern of each text rule, by the name of its `buf.validate.StringRules` extension. */
export const textRulePatterns = {
  single_line: withoutAny(singleLine),
  multi_line: withoutAny(multiLine),
} as const;

/** What each rule means, in the words of its refusal (text.proto's rule message). */
export const textRuleDescriptions = {
  single_line: "One line of text, without control, bidirectional or invisible formatting characters.",
  multi_line:
    "Text without control characters other than line feed and tab, and without bidirectional or invisible formatting characters.",
} as const;
