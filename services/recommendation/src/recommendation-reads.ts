/**
 * What the Recommendation service answers, as product ids in the order to show them, from the
 * rankings the batches keep (ranking-refresh.ts): each answer is one statement that looks its
 * lists up by key, merged here. Only active products are ever named, ties go to the lower id,
 * and a product with no order left (every one cancelled) is nobody's best seller:
 *
 * - `alsoBought(p)`: the products most often bought in one order with `p`, by the number of such
 *   orders not cancelled; then the best sellers of `p`'s category; then the best sellers overall.
 * - `forCustomer(email)`: the products the customer bought (orders not cancelled, placed since
 *   the email last changed hands) each bring their co-purchases, as `alsoBought` ranks them (its
 *   first 20); these are ranked by their counts added up, leaving out what the customer bought;
 *   then the best sellers overall (of the first 100).
 */
import { type AnalyticsStore, type Sql, sql } from "@commerce/runtime/analytics";
import { type Ranked, type RankingList, byRank, decodeRanked } from "./rankings.js";

export interface RecommendationReads {
  alsoBought(productId: string, size: number, signal?: AbortSignal): Promise<string[]>;
  forCustomer(email: string, size: number, signal?: AbortSignal): Promise<string[]>;
}

type ListRow = { list: RankingList | "bought"; subject: string; ranked: string };

/** The latest of each ranking `where` selects (on the key: list and subject). */
const rankings = (where: Sql): Sql =>
  sql`SELECT list, subject, argMax(ranked, version) AS ranked FROM recommendation_rankings
    WHERE ${where} GROUP BY list, subject`;

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

export function createRecommendationReads(store: AnalyticsStore): RecommendationReads {
  return {
    async alsoBought(productId, size, signal) {
      const rows = await store.query<ListRow>(
        rankings(sql`(list = 'also' AND subject = ${productId}) OR list = 'overall'
          OR (list = 'category' AND subject IN (SELECT maxIf(category_id, active = 1)
            FROM recommendation_products WHERE product_id = ${productId}))`),
        signal,
      );
      const list = (name: RankingList): Ranked =>
        decodeRanked(rows.find((row) => row.list === name)?.ranked ?? "");
      return merged([list("also"), list("category"), list("overall")], new Set([productId]), size);
    },

    async forCustomer(email, size, signal) {
      const customer = email.toLowerCase();
      // The customer's lines, each at its latest version (argMax, taken before any condition);
      // kept when not cancelled and placed after the email last changed hands.
      const bought = sql`SELECT product_id FROM (
          SELECT product_id, argMax(cancelled, version) AS cancelled_now, any(placed_at) AS placed
          FROM recommendation_order_lines WHERE customer = ${customer}
          GROUP BY order_id, product_id)
        WHERE cancelled_now = 0 AND placed > (
          SELECT max(forgotten_at) FROM recommendation_forgotten_customers WHERE customer = ${customer})`;
      const rows = await store.query<ListRow>(
        sql`SELECT 'bought' AS list, product_id AS subject, '' AS ranked FROM (${bought})
          UNION ALL ${rankings(sql`(list = 'also' AND subject IN (${bought})) OR list = 'overall'`)}`,
        signal,
      );
      const purchases = new Set(rows.filter((row) => row.list === "bought").map((row) => row.subject));
      const scores = new Map<string, number>();
      for (const row of rows) {
        if (row.list !== "also") continue;
        for (const [id, count] of decodeRanked(row.ranked)) scores.set(id, (scores.get(id) ?? 0) + count);
      }
      const overall = decodeRanked(rows.find((row) => row.list === "overall")?.ranked ?? "");
      return merged([[...scores].sort(byRank), overall], purchases, size);
    },
  };
}
