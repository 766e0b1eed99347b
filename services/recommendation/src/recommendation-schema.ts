/**
 * The Recommendation service's tables in the analytics store (ClickHouse, or chDB in embedded
 * mode), beside the Analytics service's and versioned apart from them
 * (`recommendation_schema_version`). Every table is a ReplacingMergeTree whose key names one
 * fact, so a redelivered event writes the same rows again and reads see them once:
 *
 * - `recommendation_order_lines`: one row per order and distinct product in it, by customer (the
 *   `me` reads), order (a cancellation must find what the order held) and product. Version 1
 *   (cancelled) replaces 0.
 * - `recommendation_pairs`: one row per order and ordered pair of distinct products in it, the
 *   diagonal included (a product with itself: the order bought it). Co-purchases of a product
 *   are one key range; its popularity is its diagonal. A cancellation writes the order's pairs
 *   again at version 1, marked cancelled.
 * - `recommendation_pair_counts`: per ordered pair, the orders that bought both and were not
 *   cancelled, summed again from the pair's rows whenever a batch touches the pair (the latest
 *   sum wins). A product's co-purchases are one key range of it, a row per other product.
 * - `recommendation_popularity`: per product, the orders that bought it and were not
 *   cancelled, summed again from its diagonal whenever a batch touches it (the latest sum wins).
 * - `recommendation_rankings`: the ranked lists the reads serve, each computed again from the
 *   counts whenever a batch changes what it ranks (ranking-refresh.ts), so that a read is a
 *   lookup by key: a product's co-purchases (`also`, with the product's category), a
 *   category's best sellers (`category`), the best sellers overall (`overall`, subject '') and a
 *   customer's purchases (`bought`, subject their email), as JSON `[[id, count], …]`. Each process
 *   that reads them keeps a copy (rankings-replica.ts).
 * - `recommendation_products`: the catalog's active products and their categories, from the
 *   product events. Version 2 (deleted) replaces 1 (listed): a deletion is final.
 * - `recommendation_forgotten_customers`: when each deleted account's email stopped being its
 *   owner's, so that a new account under the same email starts with no history.
 *
 * Reads filter on key columns only, and count so that a row written twice, or a placement
 * beside its cancellation, counts once: distinct orders less those with a cancelled row (a
 * cancellation is final), or a key's latest version by `argMax`. FINAL is never combined with
 * a condition on another column: ClickHouse 18.16 may run that condition before FINAL picks the
 * latest row (moving it to PREWHERE).
 */
import { type AnalyticsMigration, sql, type Sql } from "@commerce/runtime/analytics";
import { customerPurchases } from "./customer-purchases.js";
import { purchasesList } from "./rankings.js";

/** `column` as a JSON string: quotes and backslashes escaped (the catalog's ids are UUIDs, without control characters). */
const jsonString = (column: Sql): Sql =>
  sql`concat('"', replaceAll(replaceAll(${column}, ${"\\"}, ${"\\\\"}), ${'"'}, ${'\\"'}), '"')`;

export const recommendationVersionTable = "recommendation_schema_version";

/** Every table the events fill: what a rebuild empties before it replays the log. */
export const recommendationTables = [
  "recommendation_order_lines",
  "recommendation_pairs",
  "recommendation_pair_counts",
  "recommendation_popularity",
  "recommendation_products",
  "recommendation_rankings",
  "recommendation_forgotten_customers",
] as const;

export const recommendationMigrations: readonly AnalyticsMigration[] = [
  {
    version: 1,
    description:
      "orders, co-purchase pairs and counts, popularity, active products, rankings and forgotten customers",
    statements: [
      sql`CREATE TABLE IF NOT EXISTS recommendation_order_lines (
        customer String,
        order_id String,
        product_id String,
        placed_at DateTime('UTC'),
        cancelled UInt8,
        version UInt8
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (customer, order_id, product_id)`,
      sql`CREATE TABLE IF NOT EXISTS recommendation_pairs (
        product_id String,
        other_id String,
        order_id String,
        cancelled UInt8,
        version UInt8
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (product_id, other_id, order_id)`,
      sql`CREATE TABLE IF NOT EXISTS recommendation_pair_counts (
        product_id String,
        other_id String,
        orders UInt64,
        version UInt64
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (product_id, other_id)`,
      sql`CREATE TABLE IF NOT EXISTS recommendation_popularity (
        product_id String,
        orders UInt64,
        version UInt64
      ) ENGINE = ReplacingMergeTree(version) ORDER BY product_id`,
      sql`CREATE TABLE IF NOT EXISTS recommendation_products (
        product_id String,
        category_id String,
        active UInt8,
        version UInt8
      ) ENGINE = ReplacingMergeTree(version) ORDER BY product_id`,
      sql`CREATE TABLE IF NOT EXISTS recommendation_rankings (
        list String,
        subject String,
        ranked String,
        category String,
        version UInt64
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (list, subject)`,
      sql`CREATE TABLE IF NOT EXISTS recommendation_forgotten_customers (
        customer String,
        forgotten_at DateTime('UTC')
      ) ENGINE = ReplacingMergeTree(forgotten_at) ORDER BY customer`,
    ],
  },
  {
    version: 2,
    description: "every customer's purchases as a bought list, which the reads hold instead of asking",
    statements: [
      sql`INSERT INTO recommendation_rankings (list, subject, ranked, category, version)
        SELECT ${purchasesList}, customer,
          concat('[', arrayStringConcat(groupArray(concat('[', ${jsonString(sql`product_id`)}, ',', toString(orders), ']')), ','), ']'),
          '', toUInt64(toUnixTimestamp(now())) * 1000000
        FROM (${customerPurchases(sql``)}) GROUP BY customer`,
    ],
  },
];
