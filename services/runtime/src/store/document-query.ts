/**
 * Filter, sort and paging of the document-store port evaluated in memory, for the embedded
 * store. The semantics follow MongoDB's (which the other adapter gets from the server), so that
 * a service sees the same results on every backend:
 *   - a missing field equals `null`: `{ note: null }` matches documents without `note`;
 *   - comparisons (`$gt` …) only match values of the same type ("type bracketing"): `{ $gt: 5 }`
 *     never matches a string; `{ $gte: null }` matches null or missing;
 *   - sort order across types is MongoDB's: null/missing < numbers < strings < objects < arrays
 *     < booleans; strings compare by UTF-16 code unit (MongoDB compares UTF-8 bytes: the same
 *     order except between surrogate pairs and U+E000–U+FFFF);
 *   - ties are broken by `_id` ascending, so pages are stable.
 */
import type { FindOptions, SortKey, StoredDocument } from "./document-store.js";

type Operator = "$in" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte";
const operators: ReadonlySet<string> = new Set<Operator>(["$in", "$ne", "$gt", "$gte", "$lt", "$lte"]);

/** Sort windows at most this large are selected in one pass instead of sorting everything. */
const maxPartialSelection = 256;

/** A top-level field of a stored document (`undefined` when missing). */
export function fieldOf(doc: StoredDocument, field: string): unknown {
  return (doc as unknown as Readonly<Record<string, unknown>>)[field];
}

function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === "number") return 2;
  if (typeof value === "string") return 3;
  if (typeof value === "boolean") return 8;
  return Array.isArray(value) ? 5 : 4;
}

/** MongoDB's order of two field values (see the module comment). */
export function compareValues(a: unknown, b: unknown): number {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (rankA === 1) return 0;
  // Objects and arrays: not filterable through the port; any consistent order will do.
  const jsonA = JSON.stringify(a);
  const jsonB = JSON.stringify(b);
  return jsonA < jsonB ? -1 : jsonA > jsonB ? 1 : 0;
}

function isNullish(value: unknown): boolean {
  return value === null || value === undefined;
}

function equals(value: unknown, expected: unknown): boolean {
  if (expected === null) return isNullish(value);
  return typeRank(value) === typeRank(expected) && compareValues(value, expected) === 0;
}

/** `value <op> bound` with type bracketing; `ok` says which comparison results count. */
function bracketed(
  value: unknown,
  bound: unknown,
  ok: (order: number) => boolean,
  inclusive: boolean,
): boolean {
  if (bound === null) return inclusive && isNullish(value);
  return typeRank(value) === typeRank(bound) && ok(compareValues(value, bound));
}

function satisfies(value: unknown, operator: Operator, operand: unknown): boolean {
  switch (operator) {
    case "$in":
      if (!Array.isArray(operand)) throw new TypeError("$in needs an array");
      return operand.some((candidate) => equals(value, candidate));
    case "$ne":
      return !equals(value, operand);
    case "$gt":
      return bracketed(value, operand, (order) => order > 0, false);
    case "$gte":
      return bracketed(value, operand, (order) => order >= 0, true);
    case "$lt":
      return bracketed(value, operand, (order) => order < 0, false);
    case "$lte":
      return bracketed(value, operand, (order) => order <= 0, true);
  }
}

type Predicate = (doc: StoredDocument) => boolean;

/** True for `{ $gt: … }`-style conditions, false for a bare value (equality). */
export function isOperatorObject(condition: unknown): condition is Readonly<Record<string, unknown>> {
  return typeof condition === "object" && condition !== null && !Array.isArray(condition);
}

function compileCondition(field: string, condition: unknown): Predicate {
  if (!isOperatorObject(condition)) return (doc) => equals(fieldOf(doc, field), condition);
  const checks = Object.entries(condition).map(([operator, operand]): Predicate => {
    if (!operators.has(operator)) throw new TypeError(`unsupported filter operator ${operator} on ${field}`);
    return (doc) => satisfies(fieldOf(doc, field), operator as Operator, operand);
  });
  return (doc) => checks.every((check) => check(doc));
}

/** Validates a skip or limit: MongoDB's own meanings of negative values are not part of the port. */
function count(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

/** A filter and find options, compiled once and applied to candidate documents. */
export class DocumentQuery<T extends StoredDocument> {
  private readonly predicates: readonly Predicate[];
  private readonly sort: readonly SortKey<T>[];
  private readonly skip: number;
  private readonly limit: number | undefined;

  constructor(filter: object, options: FindOptions<T> = {}) {
    this.predicates = Object.entries(filter).map(([field, condition]) => compileCondition(field, condition));
    this.sort = options.sort ?? [];
    this.skip = count("skip", options.skip) ?? 0;
    this.limit = count("limit", options.limit);
  }

  matches(doc: T): boolean {
    return this.predicates.every((predicate) => predicate(doc));
  }

  /** Sort order of the query, `_id` ascending last. */
  readonly compare = (a: T, b: T): number => {
    for (const key of this.sort) {
      const order = compareValues(fieldOf(a, key.field), fieldOf(b, key.field));
      if (order !== 0) return order * key.direction;
    }
    return compareValues(a._id, b._id);
  };

  /** The matching candidates, sorted, then the skip/limit window. */
  run(candidates: Iterable<T>): T[] {
    const matching: T[] = [];
    for (const doc of candidates) if (this.matches(doc)) matching.push(doc);
    if (this.limit === undefined) return matching.sort(this.compare).slice(this.skip);
    const end = this.skip + this.limit;
    if (end === 0) return [];
    if (end > maxPartialSelection || end * 4 > matching.length) {
      return matching.sort(this.compare).slice(this.skip, end);
    }
    return this.smallest(matching, end).slice(this.skip);
  }

  /** The `n` first documents in sort order, in one pass (e.g. "the highest id" is O(size)). */
  private smallest(docs: readonly T[], n: number): T[] {
    const best: T[] = [];
    for (const doc of docs) {
      const last = best[best.length - 1];
      if (best.length === n && last !== undefined && this.compare(doc, last) >= 0) continue;
      let low = 0;
      let high = best.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        const other = best[middle];
        if (other !== undefined && this.compare(other, doc) <= 0) low = middle + 1;
        else high = middle;
      }
      best.splice(low, 0, doc);
      if (best.length > n) best.pop();
    }
    return best;
  }
}
