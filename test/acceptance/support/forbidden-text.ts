/**
 * Characters no name, address line, product text, password or list filter may hold
 * (ADR 0009), each with a name for test titles.
 */
export const forbidden: readonly [string, string][] = [
  ["NUL", "\u0000"],
  ["ESC", "\u001b"],
  ["CR", "\r"],
  ["LF", "\n"],
  ["DEL", "\u007f"],
  ["C1 CSI", "\u009b"],
  ["right-to-left override", "\u202e"],
  ["left-to-right isolate", "\u2066"],
  ["zero-width space", "\u200b"],
  ["byte order mark", "\ufeff"],
  ["line separator", "\u2028"],
];
