/**
 * What the Recommendation service answers, as product ids in the order to show them, from the
 * rankings the batches keep (ranking-refresh.ts), as this process's copy holds them
 * (rankings-replica.ts). Only active products are ever named, ties go to the lower id, and a
 * product with no order left (every one cancelled) is nobody's best seller:
 *
 * - `alsoBought(p)`: the products most often bought in one order with `p`, by the number of such
 *   orders not cancelled; then the best sellers of `p`'s category; then the best sellers overall.
 *   No statement: the copy holds all three.
 * - `forCustomer(customer)`: the products the customer (an account, by `customerKey`) bought
 *   (orders not cancelled, as the copy holds them, or one lookup by key for a customer it does not
 *   hold; none for "", no account) each bring their co-purchases, as `alsoBought` ranks them (its first 20);
 *   these are ranked by their counts added up, leaving out what the customer bought; then the
 *   best sellers overall (of the first 100).
 */
import type { RankingsReplica } from "./rankings-replica.js";
import { type Ranked, byRank } from "./rankings.js";

export interface RecommendationReads {
  alsoBought(productId: string, size: number, signal?: AbortSignal): Promise<string[]>;
  /** `customer`: the account's `customerKey` (purchase-facts.ts). */
  forCustomer(customer: string, size: number, signal?: AbortSignal): Promise<string[]>;
}

/** The ids of `lists` in turn, each once and none of `excluded`, at most `size`. */
function merged(lists: readonly Ranked[], excluded: ReadonlySet<string>, size: number): string[] {
  const named = new Set<string>();
  for (const ranked of lists) {
    for (const [id] of ranked) {
      if (named.size === size) return [...named];
      if (!excluded.has(id)) named.add(id);
    }
  }
  return [...named];
}

export function createRecommendationReads(rankings: RankingsReplica): RecommendationReads {
  const overall = (): Ranked => rankings.get("overall", "")?.ranked ?? [];

  return {
    alsoBought(productId, size) {
      const own = rankings.get("also", productId);
      const category =
        own === undefined || own.category === "" ? undefined : rankings.get("category", own.category);
      return Promise.resolve(
        merged([own?.ranked ?? [], category?.ranked ?? [], overall()], new Set([productId]), size),
      );
    },

    async forCustomer(customer, size, signal) {
      const purchases = new Set(customer === "" ? [] : await rankings.purchases(customer, signal));
      const scores = new Map<string, number>();
      for (const product of purchases) {
        for (const [id, count] of rankings.get("also", product)?.ranked ?? []) {
          scores.set(id, (scores.get(id) ?? 0) + count);
        }
      }
      return merged([[...scores].sort(byRank), overall()], purchases, size);
    },
  };
}
