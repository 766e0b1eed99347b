/**
 * Test support: each customer's stored purchases (the latest `bought` ranking of each), as JSON
 * of its `[id, count]` pairs sorted; none for a customer with none.
 */
import { sql, type AnalyticsStore } from "@commerce/runtime/analytics";
import { decodeRanked, purchasesList } from "../rankings.js";

export async function storedPurchases(store: AnalyticsStore): Promise<Record<string, string>> {
  const rows = await store.query<{ subject: string; ranked: string }>(
    sql`SELECT subject, argMax(ranked, version) AS ranked FROM recommendation_rankings
      WHERE list = ${purchasesList} GROUP BY subject`,
  );
  return Object.fromEntries(
    rows
      .map((row) => [row.subject, JSON.stringify([...decodeRanked(row.ranked)].sort())] as const)
      .filter(([, ranked]) => ranked !== "[]"),
  );
}
