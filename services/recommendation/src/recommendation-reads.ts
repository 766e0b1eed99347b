/**
 * What the Recommendation service answers, as product ids in the order to show them, from its
 * tables (recommendation-schema.ts). Only active products are ever named, ties go to the lower
 * id, and a product with no order left (every one cancelled) is nobody's best seller:
 *
 * - `alsoBought(p)`: the products most often bought in one order with `p`, by the number of such
 *   orders not cancelled; then the best sellers of `p`'s category; then the best sellers overall.
 * - `forCustomer(email)`: the products bought in the most orders together with anything the
 *   customer bought (orders not cancelled, placed since the email last changed hands), leaving
 *   out what they bought; then the best sellers overall.
 *
 * Each answer is one statement: its parts, each ranked and limited, are put together with UNION
 * ALL and merged here in their order (a part's ids the parts before it named are skipped), so
 * a read costs the store one round trip and one parse.
 */
import { type AnalyticsStore, type Sql, sql } from "@commerce/runtime/analytics";

export interface RecommendationReads {
  alsoBought(productId: string, size: number, signal?: AbortSignal): Promise<string[]>;
  forCustomer(email: string, size: number, signal?: AbortSignal): Promise<string[]>;
}

/** The active products (of the categories `categories` selects, when given), each by its latest listing. */
const activeProducts = (categories?: Sql): Sql =>
  sql`SELECT product_id FROM recommendation_products GROUP BY product_id
    HAVING argMax(active, version) = 1${categories === undefined ? sql`` : sql` AND argMax(category_id, version) IN (${categories})`}`;

/**
 * Co-purchases: the active products bought in one order with any of `bought` (none of them),
 * by the number of such orders not cancelled. Without FINAL: a pair row may be there twice (a
 * redelivery, or a placement and its cancellation not merged yet), so orders are counted
 * distinct, less those with a cancelled row (a cancellation is final).
 */
const boughtWith = (bought: Sql, size: number): Sql =>
  sql`SELECT other_id AS id, 0 AS part,
      toInt64(uniqExact(order_id)) - toInt64(uniqExactIf(order_id, cancelled = 1)) AS score
    FROM recommendation_pairs
    WHERE product_id IN (${bought}) AND other_id NOT IN (${bought}) AND other_id IN (${activeProducts()})
    GROUP BY other_id HAVING score > 0
    ORDER BY score DESC, id ASC LIMIT ${size}`;

/** Best sellers among `among` (active products), `excluded` left out, as part `part`: each product's latest sum. */
const bestSellers = (part: number, among: Sql, excluded: Sql, size: number): Sql =>
  sql`SELECT product_id AS id, ${part} AS part, toInt64(argMax(orders, version)) AS score
    FROM recommendation_popularity
    WHERE product_id IN (${among}) AND product_id NOT IN (${excluded})
    GROUP BY product_id HAVING score > 0
    ORDER BY score DESC, id ASC LIMIT ${size}`;

export function createRecommendationReads(store: AnalyticsStore): RecommendationReads {
  /** The ids the parts of `union` give, part by part, each once, at most `size`. */
  async function merged(union: Sql, size: number, signal?: AbortSignal): Promise<string[]> {
    const rows = await store.query<{ id: string; part: number; score: string }>(
      sql`SELECT id, part, score FROM (${union})`,
      signal,
    );
    rows.sort(
      (a, b) =>
        a.part - b.part ||
        Number(BigInt(b.score) - BigInt(a.score)) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    return [...new Set(rows.map((row) => row.id))].slice(0, size);
  }

  return {
    alsoBought(productId, size, signal) {
      const self = sql`SELECT ${productId}`;
      const category = sql`SELECT argMax(category_id, version) FROM recommendation_products
        WHERE product_id = ${productId} GROUP BY product_id`;
      // Each later part may repeat what the earlier ones named: it brings that many more.
      return merged(
        sql`${boughtWith(self, size)}
          UNION ALL ${bestSellers(1, activeProducts(category), self, 2 * size)}
          UNION ALL ${bestSellers(2, activeProducts(), self, 3 * size)}`,
        size,
        signal,
      );
    },

    forCustomer(email, size, signal) {
      const customer = email.toLowerCase();
      // The customer's lines, each at its latest version (argMax, taken before any condition);
      // kept when not cancelled and placed after the email last changed hands.
      const bought = sql`SELECT product_id FROM (
          SELECT product_id, argMax(cancelled, version) AS cancelled_now, any(placed_at) AS placed
          FROM recommendation_order_lines WHERE customer = ${customer}
          GROUP BY order_id, product_id)
        WHERE cancelled_now = 0 AND placed > (
          SELECT max(forgotten_at) FROM recommendation_forgotten_customers WHERE customer = ${customer})`;
      return merged(
        sql`${boughtWith(bought, size)}
          UNION ALL ${bestSellers(1, activeProducts(), bought, 2 * size)}`,
        size,
        signal,
      );
    },
  };
}
