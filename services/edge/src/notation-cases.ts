/**
 * The cases both edges' number notation is held to (plain-decimal.ts): the local edge's in
 * plain-decimal.spec.ts, Envoy's REST filter's through a real Envoy in
 * envoy/src/rest-filter.spec.ts. Each text with whether it is plain decimal for a signed
 * integer (`i`), an unsigned one (`u`) and a floating number (`f`).
 */
export interface NotationCase {
  readonly text: string;
  readonly i: boolean;
  readonly u: boolean;
  readonly f: boolean;
}

const yes = (text: string, i: boolean, u: boolean, f: boolean): NotationCase => ({ text, i, u, f });

export const notationCases: readonly NotationCase[] = [
  yes("0", true, true, true),
  yes("7", true, true, true),
  yes("1234567890", true, true, true),
  yes("-7", true, false, true),
  yes("-0", false, false, true),
  yes("1.5", false, false, true),
  yes("0.25", false, false, true),
  yes("-0.5", false, false, true),
  yes("1.0", false, false, true),
  yes("007", false, false, false),
  yes("00.5", false, false, false),
  yes("1e1", false, false, false),
  yes("1E1", false, false, false),
  yes("+1", false, false, false),
  yes(".5", false, false, false),
  yes("5.", false, false, false),
  yes("1.2.3", false, false, false),
  yes("0x10", false, false, false),
  yes("--1", false, false, false),
  yes("-", false, false, false),
  yes("", false, false, false),
  yes(" 1", false, false, false),
  yes("1 ", false, false, false),
  yes("Infinity", false, false, false),
  yes("NaN", false, false, false),
  yes("١", false, false, false),
];
