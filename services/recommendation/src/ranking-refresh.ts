/**
 * After a batch's rows are written, everything derived from them is summed or ranked again from
 * the store, for the keys the batch changed and no others (recommendation-schema.ts):
 *
 * 1. the count of every ordered pair its orders hold (the diagonal is each product's own);
 * 2. the popularity of every product in them;
 * 3. the co-purchase ranking of each of those products, and of every product ever bought with
 *    one the batch listed or deleted (an active product may enter or leave its list);
 * 4. the best-seller rankings of their categories, and overall;
 * 5. the purchases of each customer whose orders or account changed.
 *
 * Each sum and ranking is taken whole, never adjusted: one stamped later (`nextSumVersion`) read
 * everything an earlier one read, so a redelivered batch, or two consumers touching one product,
 * leave the latest complete answer, and the reads find it by key.
 */
import {
  type AnalyticsRow,
  type AnalyticsStore,
  joinSql,
  nextSumVersion,
  sql,
  sqlList,
} from "@commerce/runtime/analytics";
import { customerPurchases } from "./customer-purchases.js";
import {
  bestSellersKept,
  byRank,
  coPurchasesKept,
  encodeRanked,
  purchasesList,
  type Ranked,
} from "./rankings.js";

export interface RefreshScope {
  /** Each product whose orders changed, with the others those orders held (itself included). */
  readonly pairs: ReadonlyMap<string, ReadonlySet<string>>;
  /** The products listed or deleted. */
  readonly relisted: ReadonlySet<string>;
  /** The customers who placed or cancelled an order, or whose account was deleted. */
  readonly customers: ReadonlySet<string>;
}

/** Keys per statement: its text stays far under ClickHouse's 256 KiB. */
const keysPerStatement = 2_000;

/** The active products, each by its latest listing. */
const activeProducts = sql`SELECT product_id FROM recommendation_products GROUP BY product_id
  HAVING argMax(active, version) = 1`;

/** Orders not cancelled among a group of pair rows: distinct, less those with a cancelled row. */
const ordersKept = sql`toInt64(uniqExact(order_id)) - toInt64(uniqExactIf(order_id, cancelled = 1))`;

export async function refreshRankings(
  store: AnalyticsStore,
  scope: RefreshScope,
  signal: AbortSignal,
): Promise<void> {
  const bought = [...scope.pairs.keys()].sort();
  const relisted = [...scope.relisted].sort();
  await sumPairs(
    store,
    [...scope.pairs].flatMap(([product, others]) => [...others].map((other) => [product, other])),
    signal,
  );
  await sumPopularity(store, bought, signal);
  const neighbours = await boughtWith(store, relisted, signal);
  // A product listed or deleted is ranked too: its ranking carries its category.
  const ranked = [...new Set([...bought, ...neighbours, ...relisted])].sort();
  const categoryOf = await categoriesOf(store, ranked, signal);
  await rankCoPurchases(store, ranked, categoryOf, signal);
  if (bought.length + relisted.length > 0) {
    const categories = new Set([...bought, ...relisted].map((product) => categoryOf.get(product) ?? ""));
    categories.delete("");
    await rankBestSellers(store, [...categories].sort(), signal);
  }
  await listPurchases(store, [...scope.customers].sort(), signal);
}

function* chunks<T>(items: readonly T[]): Generator<readonly T[]> {
  for (let start = 0; start < items.length; start += keysPerStatement) {
    yield items.slice(start, start + keysPerStatement);
  }
}

async function sumPairs(
  store: AnalyticsStore,
  pairs: readonly (readonly [string, string])[],
  signal: AbortSignal,
): Promise<void> {
  // In key order, so that each statement's pairs share few products: the condition on the
  // first key column alone lets the store read only their ranges.
  const sorted = [...pairs].sort(([a, b], [c, d]) => (a < c ? -1 : a > c ? 1 : b < d ? -1 : b > d ? 1 : 0));
  for (const some of chunks(sorted)) {
    await store.command(
      sql`INSERT INTO recommendation_pair_counts (product_id, other_id, orders, version)
        SELECT product_id, other_id, ${ordersKept} AS orders, ${nextSumVersion()} AS version
        FROM recommendation_pairs
        WHERE product_id IN ${sqlList([...new Set(some.map(([product]) => product))])}
          AND (product_id, other_id) IN (${joinSql(
            some.map(([product, other]) => sql`(${product}, ${other})`),
            sql`, `,
          )})
        GROUP BY product_id, other_id`,
      signal,
    );
  }
}

/**
 * Popularity is a product's diagonal, counted by `sumPairs` just before (every product's pairs
 * include itself): its latest count is copied, not counted again. (The columns take other
 * names here: an alias `version` would stand for the column inside `argMax` on ClickHouse 18.16.)
 */
async function sumPopularity(
  store: AnalyticsStore,
  products: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  for (const some of chunks(products)) {
    await store.command(
      sql`INSERT INTO recommendation_popularity (product_id, orders, version)
        SELECT product_id, argMax(orders, version) AS latest, ${nextSumVersion()} AS sum_version
        FROM recommendation_pair_counts
        WHERE (product_id, other_id) IN (${joinSql(
          some.map((product) => sql`(${product}, ${product})`),
          sql`, `,
        )})
        GROUP BY product_id`,
      signal,
    );
  }
}

/** The products ever bought in one order with any of `products`. */
async function boughtWith(
  store: AnalyticsStore,
  products: readonly string[],
  signal: AbortSignal,
): Promise<string[]> {
  const found: string[] = [];
  for (const some of chunks(products)) {
    const rows = await store.query<{ other_id: string }>(
      sql`SELECT DISTINCT other_id FROM recommendation_pair_counts WHERE product_id IN ${sqlList(some)}`,
      signal,
    );
    found.push(...rows.map((row) => row.other_id));
  }
  return found;
}

/** Each product's most bought-with active products, as its `also` ranking (empty when none). */
async function rankCoPurchases(
  store: AnalyticsStore,
  products: readonly string[],
  categoryOf: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<void> {
  for (const some of chunks(products)) {
    const version = nextSumVersion();
    const rows = await store.query<{ product_id: string; other_id: string; orders: string }>(
      sql`SELECT product_id, other_id, toInt64(argMax(orders, version)) AS orders
        FROM recommendation_pair_counts
        WHERE product_id IN ${sqlList(some)} AND other_id != product_id AND other_id IN (${activeProducts})
        GROUP BY product_id, other_id HAVING orders > 0
        ORDER BY product_id, orders DESC, other_id LIMIT ${coPurchasesKept} BY product_id`,
      signal,
    );
    const rankings = new Map<string, [string, number][]>(some.map((product) => [product, []]));
    for (const row of rows) rankings.get(row.product_id)?.push([row.other_id, Number(row.orders)]);
    await store.insert(
      "recommendation_rankings",
      rankingRows("also", rankings, version, (product) => categoryOf.get(product) ?? ""),
      signal,
    );
  }
}

/** The category each of `products` is listed in (a deleted product's, as it was listed). */
async function categoriesOf(
  store: AnalyticsStore,
  products: readonly string[],
  signal: AbortSignal,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const some of chunks(products)) {
    const rows = await store.query<{ product_id: string; category: string }>(
      sql`SELECT product_id, maxIf(category_id, active = 1) AS category FROM recommendation_products
        WHERE product_id IN ${sqlList(some)} GROUP BY product_id`,
      signal,
    );
    for (const row of rows) found.set(row.product_id, row.category);
  }
  return found;
}

/** The best sellers of each of `categories` and overall: active products by orders kept. */
async function rankBestSellers(
  store: AnalyticsStore,
  categories: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  const version = nextSumVersion();
  const sold = sql`SELECT product_id, toInt64(argMax(orders, version)) AS orders FROM recommendation_popularity
    GROUP BY product_id HAVING orders > 0`;
  const listedIn = sql`SELECT product_id, argMax(category_id, version) AS category FROM recommendation_products
    GROUP BY product_id HAVING argMax(active, version) = 1`;
  const byCategory =
    categories.length === 0
      ? sql``
      : sql`UNION ALL SELECT category, product_id, orders FROM (${sold}) AS sold ANY INNER JOIN (${listedIn}) AS listed USING product_id
          WHERE category IN ${sqlList(categories)}
          ORDER BY category, orders DESC, product_id LIMIT ${bestSellersKept} BY category`;
  const rows = await store.query<{ category: string; product_id: string; orders: string }>(
    sql`SELECT '' AS category, product_id, orders FROM (${sold}) WHERE product_id IN (${activeProducts})
      ORDER BY orders DESC, product_id LIMIT ${bestSellersKept} ${byCategory}`,
    signal,
  );
  const overall = new Map<string, [string, number][]>([["", []]]);
  const byCategoryRankings = new Map<string, [string, number][]>(
    categories.map((category) => [category, []]),
  );
  for (const row of rows) {
    (row.category === "" ? overall : byCategoryRankings)
      .get(row.category)
      ?.push([row.product_id, Number(row.orders)]);
  }
  await store.insert(
    "recommendation_rankings",
    [...rankingRows("overall", overall, version), ...rankingRows("category", byCategoryRankings, version)],
    signal,
  );
}

/** Each customer's purchases (an empty list for one with none left), taken again. */
export async function listPurchases(
  store: AnalyticsStore,
  customers: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  for (const some of chunks(customers)) {
    const version = nextSumVersion();
    const rows = await store.query<{ customer: string; product_id: string; orders: string }>(
      customerPurchases(sql`WHERE customer IN ${sqlList(some)}`),
      signal,
    );
    const purchases = new Map<string, [string, number][]>(some.map((customer) => [customer, []]));
    for (const row of rows) purchases.get(row.customer)?.push([row.product_id, Number(row.orders)]);
    await store.insert("recommendation_rankings", rankingRows(purchasesList, purchases, version), signal);
  }
}

/** Rows of `list`, one per subject; `categoryOf` gives an `also` ranking its product's category. */
function rankingRows(
  list: string,
  rankings: ReadonlyMap<string, [string, number][]>,
  version: number,
  categoryOf: (subject: string) => string = () => "",
): AnalyticsRow[] {
  return [...rankings].map(([subject, ranked]) => ({
    list,
    subject,
    ranked: encodeRanked(ranked.sort(byRank) satisfies Ranked),
    category: categoryOf(subject),
    version,
  }));
}
