/**
 * Catalog read figures for `npm run bench`: seeds products through the admin API, then loads
 * the two public reads a shop front makes most, through the edge:
 *   - GET /api/products/{id}: one product and its stock (the ledger's newest entry);
 *   - GET /api/products?category=…&brand=…&size=20: a filtered page, a count, and the stock
 *     of each product on it.
 * Figures only; nothing is asserted.
 */
import { randomUUID } from "node:crypto";
import { formatResult, measure, type LoadResult } from "./load.js";
import { untilQuiet } from "./quiescence.js";

export interface CatalogBenchOptions {
  readonly connections: number;
  readonly seconds: number;
  /** Products to seed (default 500), spread over 4 categories and 5 brands. */
  readonly products?: number;
  /** Shown in the labels: what runs behind the edge (default "embedded"). */
  readonly mode?: string;
}

const categories = ["electronics", "books", "toys", "sports"] as const;
const brandCount = 5;
/** The bulk endpoint's limit per request. */
const bulkLimit = 100;

async function post(url: string, token: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${await response.text()}`);
}

/** Seeds the catalog and returns the printed lines (one per measured read). */
export interface CatalogBenchResult {
  /** GET /api/products/{id}, for the ratio to the bare server. */
  readonly byId: LoadResult;
  readonly lines: string[];
}

/** A seeded catalog: the two reads' URLs, and what the filtered page holds. */
export interface SeededCatalog {
  /** GET /api/products/{id} of a seeded product. */
  readonly byIdUrl: string;
  /** GET /api/products?category=…&brand=…&size=20: a page of 20 of the seeded products. */
  readonly filteredUrl: string;
  /** Products seeded, the filtered page's size and its hits. */
  readonly summary: string;
}

/** Seeds `total` products (500 by default) through the admin API, once they are all quiet. */
export async function seedCatalog(baseUrl: string, adminToken: string, total = 500): Promise<SeededCatalog> {
  const run = randomUUID().slice(0, 8);
  const brand = (i: number): string => `Bench ${run} brand ${i % brandCount}`;
  const items = Array.from({ length: total }, (_, i) => ({
    name: `Bench ${run} product ${i}`,
    description: "Seeded by the catalog benchmark",
    price: 100 + (i % 900) + 0.99,
    stock: 1_000,
    brand: brand(i),
    categoryId: categories[i % categories.length],
  }));
  for (let start = 0; start < items.length; start += bulkLimit) {
    await post(`${baseUrl}/api/products/bulk`, adminToken, items.slice(start, start + bulkLimit));
  }
  // Creating products notifies the admins: let that finish before measuring reads.
  await untilQuiet(baseUrl, adminToken);

  const filteredUrl = `${baseUrl}/api/products?category=Electronics&brand=${encodeURIComponent(brand(0))}&size=20`;
  const page = (await (await fetch(filteredUrl)).json()) as {
    content: { id: string }[];
    totalElements: number;
  };
  const productId = page.content[0]?.id;
  if (productId === undefined) throw new Error("the seeded products are not listed");
  return {
    byIdUrl: `${baseUrl}/api/products/${productId}`,
    filteredUrl,
    summary: `${total} products seeded; the filtered page holds ${page.content.length} of ${page.totalElements} hits`,
  };
}

export async function benchCatalog(
  baseUrl: string,
  adminToken: string,
  options: CatalogBenchOptions,
): Promise<CatalogBenchResult> {
  const catalog = await seedCatalog(baseUrl, adminToken, options.products);
  const byId = await measure({
    url: catalog.byIdUrl,
    connections: options.connections,
    seconds: options.seconds,
  });
  const list = await measure({
    url: catalog.filteredUrl,
    connections: options.connections,
    seconds: options.seconds,
  });
  const mode = options.mode ?? "embedded";
  return {
    byId,
    lines: [
      formatResult(`GET /api/products/{id} (${mode})`, byId),
      formatResult(`GET /api/products?category&brand (${mode})`, list),
      `  catalog: ${catalog.summary}`,
    ],
  };
}
