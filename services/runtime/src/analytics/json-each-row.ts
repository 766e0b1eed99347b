/**
 * Rows as JSONEachRow text, the insert format both adapters send: one JSON object per line,
 * written here rather than by either client, so both engines receive the same bytes.
 *
 * Values: strings as JSON strings (a lone surrogate is refused); numbers finite and, when
 * integers, within ±2^53; bigints as bare JSON numbers, exact (Int64 money in minor units);
 * booleans as 1 or 0 (UInt8); Dates as `YYYY-MM-DD hh:mm:ss` UTC in whole seconds
 * (`dateTimeText`); null as null (for Nullable columns).
 */
import type { AnalyticsRow } from "./analytics-store.js";
import { assertWellFormed, dateTimeText, numberText, type SqlValue } from "./sql.js";

export function encodeJsonEachRow(rows: readonly AnalyticsRow[]): string {
  let text = "";
  for (const row of rows) {
    let line = "";
    for (const [column, value] of Object.entries(row)) {
      line += `${line === "" ? "{" : ","}${JSON.stringify(column)}:${jsonValue(column, value)}`;
    }
    text += `${line === "" ? "{" : line}}\n`;
  }
  return text;
}

function jsonValue(column: string, value: SqlValue): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      assertWellFormed(value);
      return JSON.stringify(value);
    case "number":
      return numberText(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "1" : "0";
    default:
      if (value instanceof Date) return JSON.stringify(dateTimeText(value));
      throw new TypeError(`column ${column}: cannot insert ${typeof value}`);
  }
}
