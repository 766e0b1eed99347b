/**
 * The ranked lists of `recommendation_rankings` (recommendation-schema.ts): which lists there
 * are, how long each is kept, and their stored form, JSON `[[id, count], …]` in rank order (most
 * first, ties to the lower id).
 */

/** The lists about products: every process holds all of them. */
export type RankingList = "also" | "category" | "overall";

/**
 * A customer's purchases (subject: their account's `customerKey`, purchase-facts.ts): each
 * product their orders not cancelled hold, with how many. Read as a set.
 */
export const purchasesList = "bought";

/** A product's co-purchases are kept to the most an answer may show. */
export const coPurchasesKept = 20;

/**
 * Best sellers are kept further: a fill skips what the answer already named, the product asked
 * about, or what a customer bought.
 */
export const bestSellersKept = 100;

export type Ranked = readonly (readonly [id: string, count: number])[];

export const encodeRanked = (ranked: Ranked): string => JSON.stringify(ranked);

export function decodeRanked(text: string): Ranked {
  const value: unknown = text === "" ? [] : JSON.parse(text);
  if (!Array.isArray(value)) throw new TypeError("a stored ranking is not a list");
  return value as Ranked;
}

/** Most first, then the lower id. */
export const byRank = (a: readonly [string, number], b: readonly [string, number]): number =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
