/**
 * The one place where values become SQL text for the analytics store. ClickHouse 18.16 has no
 * query parameters (`{name:Type}` arrived in 19.11), so values are written into the statement as
 * literals; `sql` does that for every interpolated value, and the store's methods accept only
 * the `Sql` it returns, never a string, so a value cannot reach a statement any other way.
 *
 *     sql`SELECT count() AS n FROM ${identifier(table)} FINAL WHERE status = ${status}`
 *
 * What a value becomes (the literal syntax that ClickHouse 18.16 and chDB 26 read alike):
 *   - string: `'…'` with `\` and `'` escaped and every control character as `\xHH`, so the
 *     text holds no raw line break or NUL; any other character (Unicode included) as is. A
 *     string with a lone UTF-16 surrogate is refused: it has no UTF-8 form;
 *   - number: finite, and an integer only within ±2^53 (beyond that a bigint says which integer
 *     is meant); negative ones in parentheses, so `a-${-1}` cannot read as `a--1`, a comment;
 *   - bigint: its digits (parenthesised when negative);
 *   - boolean: 1 or 0 (18.16 has neither a Bool type nor `true`);
 *   - Date: `toDateTime('YYYY-MM-DD hh:mm:ss', 'UTC')` (see `dateTimeText` for the range and
 *     why sub-second parts are dropped);
 *   - null: NULL;
 *   - an `Sql` fragment: its text, unchanged (statements are built from pieces);
 *   - anything else (undefined, arrays, objects) is refused with a TypeError.
 *
 * Identifiers (table and column names chosen at run time) go through `identifier`, which
 * accepts only plain names.
 */

/** A value `sql` can write as a literal. */
export type SqlValue = string | number | bigint | boolean | Date | null;

const brand = Symbol("Sql");

/** A statement or a piece of one, made only by `sql` and `identifier`. */
export class Sql {
  /** @param key proves the caller is this module: nobody else can make an `Sql` from a string. */
  constructor(
    key: typeof brand,
    readonly text: string,
  ) {
    if (key !== brand) throw new TypeError("an Sql is made with sql`…` or identifier()");
  }

  toString(): string {
    return this.text;
  }
}

/** Builds a statement; every `${value}` becomes a literal (or a fragment's text). */
export function sql(strings: TemplateStringsArray, ...values: readonly (SqlValue | Sql)[]): Sql {
  let text = strings[0] ?? "";
  values.forEach((value, i) => {
    text += literal(value) + (strings[i + 1] ?? "");
  });
  return new Sql(brand, text);
}

/** `(v1, v2, …)`: values for `IN`; at least one (`IN ()` is not SQL). */
export function sqlList(values: readonly SqlValue[]): Sql {
  if (values.length === 0) throw new TypeError("an SQL list needs at least one value");
  return new Sql(brand, `(${values.map(literal).join(", ")})`);
}

/** Fragments joined by `separator` (a fixed piece of SQL such as `, ` or ` OR `). */
export function joinSql(fragments: readonly Sql[], separator: Sql): Sql {
  return new Sql(brand, fragments.map((fragment) => fragment.text).join(separator.text));
}

const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A table, database or column name, backquoted; only letters, digits and `_` are accepted. */
export function identifier(name: string): Sql {
  if (!plainName.test(name)) throw new TypeError(`not a plain SQL name: ${JSON.stringify(name)}`);
  return new Sql(brand, `\`${name}\``);
}

/** Throws unless `name` is a plain name (see `identifier`); returns it. */
export function plainIdentifier(name: string): string {
  if (!plainName.test(name)) throw new TypeError(`not a plain SQL name: ${JSON.stringify(name)}`);
  return name;
}

function literal(value: SqlValue | Sql): string {
  if (value instanceof Sql) return value.text;
  if (value === null) return "NULL";
  switch (typeof value) {
    case "string":
      return stringLiteral(value);
    case "number":
      return parenthesiseNegative(numberText(value));
    case "bigint":
      return parenthesiseNegative(value.toString());
    case "boolean":
      return value ? "1" : "0";
    default:
      if (value instanceof Date) return `toDateTime(${stringLiteral(dateTimeText(value))}, 'UTC')`;
      throw new TypeError(`cannot write ${describe(value)} as an SQL literal`);
  }
}

function parenthesiseNegative(text: string): string {
  return text.startsWith("-") ? `(${text})` : text;
}

/** A JSON/SQL number text for a finite number that is exact as written. */
export function numberText(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} to the analytics store`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new TypeError(`${value} is beyond ±2^53 and may not be the integer meant: pass a bigint`);
  }
  return Object.is(value, -0) ? "0" : String(value);
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const needsEscape = /[\\'\u0000-\u001f\u007f]/g;

function stringLiteral(value: string): string {
  assertWellFormed(value);
  return `'${value.replace(needsEscape, (c) =>
    c === "\\" || c === "'" ? `\\${c}` : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  )}'`;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuses strings with a lone surrogate: they have no UTF-8 form, so they cannot be stored. */
export function assertWellFormed(value: string): void {
  if (loneSurrogate.test(value))
    throw new TypeError("a string with a lone UTF-16 surrogate cannot be stored");
}

/** The first instant DateTime cannot hold (it is seconds since 1970 in 32 unsigned bits). */
const dateTimeEnd = Date.UTC(2106, 1, 7, 6, 28, 16);

/**
 * `YYYY-MM-DD hh:mm:ss` in UTC, the DateTime text both engines read. DateTime counts whole
 * seconds (18.16 has no DateTime64), so the milliseconds are dropped: always downwards, as
 * ClickHouse itself truncates. Refuses invalid dates, the Unix epoch itself and what lies
 * outside DateTime's range: 18.16 shows the zero DateTime as `0000-00-00 00:00:00`.
 */
export function dateTimeText(date: Date): string {
  const time = date.getTime();
  if (Number.isNaN(time)) throw new TypeError("cannot write an invalid Date to the analytics store");
  if (time < 1_000 || time >= dateTimeEnd) {
    throw new TypeError(`${date.toISOString()} is outside the range of DateTime (after 1970 to 2106)`);
  }
  return date.toISOString().slice(0, 19).replace("T", " ");
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : typeof value;
}
