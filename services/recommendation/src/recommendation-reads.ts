/**
 * What the Recommendation service answers, as product ids in the order to show them, from the
 * rankings the batches keep (ranking-refresh.ts), as this process's copy holds them
 * (rankings-replica.ts). Only active products are ever named, ties go to the lower id, and a
 * product with no order left (every one cancelled) is nobody's best seller:
 *
 * - `alsoBought(p)`: the products most often bought in one order with `p`, by the number of such
 *   orders not cancelled; then the best sellers of `p`'s category; then the best sellers overall.
 *   No statement: the copy holds all three.
 * - `forCustomer(email)`: the products the customer bought (orders not cancelled, placed since
 *   the email last changed hands, one statement on their own key range) each bring their
 *   co-purchases, as `alsoBought` ranks them (its first 20); these are ranked by their counts
 *   added up, leaving out what the customer bought; then the best sellers overall (of the first
 *   100).
 */
import { type AnalyticsStore, sql } from "@commerce/runtime/analytics";
import type { RankingsReplica } from "./rankings-replica.js";
import { type Ranked, byRank } from "./rankings.js";

export interface RecommendationReads {
  alsoBought(productId: string, size: number, signal?: AbortSignal): Promise<string[]>;
  forCustomer(email: string, size: number, signal?: AbortSignal): Promise<string[]>;
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

export function createRecommendationReads(
  store: AnalyticsStore,
  rankings: RankingsReplica,
): RecommendationReads {
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

    async forCustomer(email, size, signal) {
      const customer = email.toLowerCase();
      // The customer's lines, each at its latest version (argMax, taken before any condition);
      // kept when not cancelled and placed after the email last changed hands.
      const rows = await store.query<{ product_id: string }>(
        sql`SELECT DISTINCT product_id FROM (
            SELECT product_id, argMax(cancelled, version) AS cancelled_now, any(placed_at) AS placed
            FROM recommendation_order_lines WHERE customer = ${customer}
            GROUP BY order_id, product_id)
          WHERE cancelled_now = 0 AND placed > (
            SELECT max(forgotten_at) FROM recommendation_forgotten_customers WHERE customer = ${customer})`,
        signal,
      );
      const purchases = new Set(rows.map((row) => row.product_id));
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
