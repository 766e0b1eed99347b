/**
 * How deep a JSON request body may nest (ADR 0007): at most
 * `maxJsonDepth` objects and arrays open at once. No request message nests more than a few
 * levels, and the checks after this one (the numbers scan, protobuf decoding) recurse once per
 * level, so a body of 10,000 brackets overflowed the stack. This check runs first and loops
 * instead of recursing, so input can never choose its cost in stack frames. Envoy's REST filter
 * applies the same limit, and the same message, from these two exports (envoy/src/lua-source.ts).
 */

/** The deepest nesting a request body may have: objects and arrays open at the same time. */
export const maxJsonDepth = 100;

/** The refusal of a body nested deeper than `maxJsonDepth`. */
export const tooDeepMessage = `request body nests deeper than ${maxJsonDepth} levels`;

const quote = 0x22;
const backslash = 0x5c;

/**
 * Whether `text` opens more than `maxJsonDepth` objects and arrays at once. Brackets inside
 * strings do not count; anything else about the text (whether it is JSON at all) is left to
 * the parser, which runs after this.
 */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at += 1) {
    const c = text.charCodeAt(at);
    if (c === quote) {
      at = closingQuote(text, at);
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth += 1;
      if (depth > maxJsonDepth) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth -= 1;
    }
  }
  return false;
}

/** The position of the quote that ends the string opened at `open`, or the text's end. */
function closingQuote(text: string, open: number): number {
  let at = open + 1;
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c === quote) return at;
    at += c === backslash ? 2 : 1;
  }
  return text.length;
}
