/**
 * What the Recommendation service answers, as product ids in the order to show them, from its
 * tables (recommendation-schema.ts). Only active products are ever named, ties go to the lower
 * id, and a product with no order left (every one cancelled) is nobody's best seller:
 *
 * - `alsoBought(p)`: the products most often bought in one order with `p`, by the number of such
 *   orders not cancelled; then the best sellers of `p`'s category; then the best sellers overall.
 * - `forCustomer(email)`: the products most often bought together with what the customer bought
 *   (orders not cancelled, placed since the email last changed hands), summed over those
 *   products, leaving out what they bought; then the best sellers overall.
 */
import { type AnalyticsStore, type Sql, sql, sqlList } from "@commerce/runtime/analytics";

export interface RecommendationReads {
  alsoBought(productId: string, size: number, signal?: AbortSignal): Promise<string[]>;
  forCustomer(email: string, size: number, signal?: AbortSignal): Promise<string[]>;
}

/** The active products, each by its latest listing. */
const activeProducts = sql`SELECT product_id FROM recommendation_products
  GROUP BY product_id HAVING argMax(active, version) = 1`;

export function createRecommendationReads(store: AnalyticsStore): RecommendationReads {
  /** The products bought with any of `bought` (none of them), by orders not cancelled. */
  async function boughtWith(
    bought: readonly string[],
    size: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const rows = await store.query<{ id: string }>(
      sql`SELECT other_id AS id, countIf(cancelled = 0) AS orders
        FROM recommendation_pairs FINAL
        WHERE product_id IN ${sqlList(bought)} AND other_id NOT IN ${sqlList(bought)}
          AND other_id IN (${activeProducts})
        GROUP BY other_id
        HAVING orders > 0
        ORDER BY orders DESC, id ASC
        LIMIT ${size}`,
      signal,
    );
    return rows.map((row) => row.id);
  }

  /** The best sellers (of `category` when given), `excluded` left out. */
  async function bestSellers(
    size: number,
    excluded: readonly string[],
    category: string | undefined,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const inCategory: Sql =
      category === undefined ? sql`` : sql` AND argMax(category_id, version) = ${category}`;
    const rows = await store.query<{ id: string }>(
      sql`SELECT product_id AS id, max(orders) AS sold
        FROM recommendation_popularity FINAL
        WHERE product_id IN (SELECT product_id FROM recommendation_products
            GROUP BY product_id HAVING argMax(active, version) = 1${inCategory})
          AND product_id NOT IN ${sqlList(excluded.length === 0 ? [""] : excluded)}
        GROUP BY product_id
        HAVING sold > 0
        ORDER BY sold DESC, id ASC
        LIMIT ${size}`,
      signal,
    );
    return rows.map((row) => row.id);
  }

  /** `chosen`, then what each of `fills` gives, until `size`, each id once. */
  async function filled(
    chosen: string[],
    size: number,
    leftOut: readonly string[],
    fills: readonly ((room: number, excluded: readonly string[]) => Promise<string[]>)[],
  ): Promise<string[]> {
    for (const fill of fills) {
      if (chosen.length >= size) break;
      chosen.push(...(await fill(size - chosen.length, [...leftOut, ...chosen])));
    }
    return chosen.slice(0, size);
  }

  return {
    async alsoBought(productId, size, signal) {
      const [listing] = await store.query<{ category: string }>(
        sql`SELECT argMax(category_id, version) AS category FROM recommendation_products
          WHERE product_id = ${productId} GROUP BY product_id`,
        signal,
      );
      const category = listing?.category === "" ? undefined : listing?.category;
      return filled(
        await boughtWith([productId], size, signal),
        size,
        [productId],
        [
          ...(category === undefined
            ? []
            : [(room: number, excluded: readonly string[]) => bestSellers(room, excluded, category, signal)]),
          (room, excluded) => bestSellers(room, excluded, undefined, signal),
        ],
      );
    },

    async forCustomer(email, size, signal) {
      const customer = email.toLowerCase();
      const [forgotten] = await store.query<{ at: string }>(
        sql`SELECT toUInt32(max(forgotten_at)) AS at FROM recommendation_forgotten_customers
          WHERE customer = ${customer}`,
        signal,
      );
      const since = Number(forgotten?.at ?? 0);
      const lines = await store.query<{ product_id: string; placed: number; cancelled: number }>(
        sql`SELECT product_id, toUInt32(placed_at) AS placed, cancelled
          FROM recommendation_order_lines FINAL WHERE customer = ${customer}`,
        signal,
      );
      const bought = [
        ...new Set(
          lines.filter((line) => line.cancelled === 0 && line.placed > since).map((line) => line.product_id),
        ),
      ].sort();
      const chosen = bought.length === 0 ? [] : await boughtWith(bought, size, signal);
      return filled(chosen, size, bought, [
        (room, excluded) => bestSellers(room, excluded, undefined, signal),
      ]);
    },
  };
}
