/**
 * The Recommendation service's work on one batch of events (purchase-facts.ts): the rows each
 * fact gives go to their tables with one insert per table (recommendation-schema.ts), then the
 * counts and rankings the batch changed are taken again from them (ranking-refresh.ts). The
 * handler resolves only after all of it is acknowledged, and the bus commits the batch only
 * then, so a crash anywhere in between redelivers the batch: its rows arrive again under the
 * same keys and versions, which count once, and the sums and rankings are taken again. A
 * placement and its cancellation in one batch are written in one go; a cancellation of an order
 * placed before reads that order's products back first, under the owner's key and under its
 * email (the key of the rows written before customers were keyed by account), and cancels every
 * copy it finds.
 */
import { type AnalyticsRow, type AnalyticsStore, sql, sqlList } from "@commerce/runtime/analytics";
import type { BatchHandler } from "@commerce/runtime/events";
import { purchaseFactOf, type PurchaseFact } from "./purchase-facts.js";
import { refreshRankings } from "./ranking-refresh.js";

type Placed = Extract<PurchaseFact, { kind: "placed" }>;

/** An order as a cancellation rewrites it. */
interface OrderLines {
  readonly customer: string;
  readonly orderId: string;
  readonly products: readonly string[];
  readonly at: Date;
}

const placedVersion = 0;
const cancelledVersion = 1;
const listedVersion = 1;
const delistedVersion = 2;

/**
 * The most distinct products an order may hold and still count as bought together: an order
 * of k products writes k² pair rows (a thousand-line order would write a million).
 */
export const maxPairedProducts = 50;

export function createCoPurchaseProcessor(store: AnalyticsStore): BatchHandler {
  return async (batch, signal) => {
    const placed = new Map<string, Placed>();
    const cancellations: Cancellation[] = [];
    const lines: AnalyticsRow[] = [];
    const pairs: AnalyticsRow[] = [];
    const products: AnalyticsRow[] = [];
    const forgotten: AnalyticsRow[] = [];
    const touched = new Map<string, Set<string>>();
    const relisted = new Set<string>();
    const customers = new Set<string>();
    for (const record of batch.records) {
      const fact = purchaseFactOf(record);
      switch (fact?.kind) {
        case undefined:
          break;
        case "placed":
          placed.set(fact.orderId, fact);
          if (fact.customer !== "") customers.add(fact.customer);
          write(fact, placedVersion, lines, pairs, touched);
          break;
        case "cancelled":
          cancellations.push(fact);
          break;
        case "listed":
          relisted.add(fact.productId);
          products.push({
            product_id: fact.productId,
            category_id: fact.categoryId,
            active: 1,
            version: listedVersion,
          });
          break;
        case "delisted":
          relisted.add(fact.productId);
          products.push({ product_id: fact.productId, category_id: "", active: 0, version: delistedVersion });
          break;
        case "forgotten":
          forgotten.push({ customer: fact.customer, forgotten_at: fact.at });
          customers.add(fact.customer);
          break;
      }
    }
    const earlier = await placedBefore(
      store,
      cancellations.filter((cancellation) => !placed.has(cancellation.orderId)),
      signal,
    );
    for (const { orderId } of cancellations) {
      // A cancellation of a placement never seen (dead-lettered) has nothing to take back.
      const inBatch = placed.get(orderId);
      for (const order of inBatch === undefined ? (earlier.get(orderId) ?? []) : [inBatch]) {
        if (order.customer !== "") customers.add(order.customer);
        write(order, cancelledVersion, lines, pairs, touched);
      }
    }
    for (const [table, rows] of [
      ["recommendation_order_lines", lines],
      ["recommendation_pairs", pairs],
      ["recommendation_products", products],
      ["recommendation_forgotten_customers", forgotten],
    ] as const) {
      if (rows.length > 0) await store.insert(table, rows, signal);
    }
    await refreshRankings(store, { pairs: touched, relisted, customers }, signal);
  };
}

/**
 * The rows of `order` at `version` (cancelled from version 1 on): its lines and its pairs, each
 * pair noted in `touched` (product to others).
 */
function write(
  order: OrderLines,
  version: number,
  lines: AnalyticsRow[],
  pairs: AnalyticsRow[],
  touched: Map<string, Set<string>>,
): void {
  const cancelled = version === cancelledVersion ? 1 : 0;
  for (const product of order.products) {
    lines.push({
      customer: order.customer,
      order_id: order.orderId,
      product_id: product,
      placed_at: order.at,
      cancelled,
      version,
    });
    // A bulk order pairs nothing: its products' co-purchases would cost the square of its size
    // in rows and say little. It still counts for each product's popularity (the diagonal).
    const others = order.products.length > maxPairedProducts ? [product] : order.products;
    const noted = touched.get(product) ?? new Set<string>();
    touched.set(product, noted);
    for (const other of others) {
      noted.add(other);
      pairs.push({ product_id: product, other_id: other, order_id: order.orderId, cancelled, version });
    }
  }
}

/** A cancellation as the batch names it: its order, and the keys its rows may be under. */
interface Cancellation {
  readonly customer: string;
  readonly email: string;
  readonly orderId: string;
}

/**
 * The orders `cancellations` name, as their placements wrote them, by order id: one copy per key
 * it was found under (the owner's, and the email of rows written before customers were keyed by
 * account).
 */
async function placedBefore(
  store: AnalyticsStore,
  cancellations: readonly Cancellation[],
  signal: AbortSignal,
): Promise<Map<string, OrderLines[]>> {
  const orders = new Map<string, OrderLines[]>();
  if (cancellations.length === 0) return orders;
  const keys = (c: Cancellation): string[] => [c.customer, c.email];
  // Key columns only beside FINAL (recommendation-schema.ts); the time as epoch seconds, as the reads take it.
  const rows = await store.query<{ customer: string; order_id: string; product_id: string; placed: number }>(
    sql`SELECT customer, order_id, product_id, toUInt32(placed_at) AS placed FROM recommendation_order_lines FINAL
      WHERE customer IN ${sqlList([...new Set(cancellations.flatMap(keys))])}
        AND order_id IN ${sqlList(cancellations.map((c) => c.orderId))}`,
    signal,
  );
  const wanted = new Set(cancellations.flatMap((c) => keys(c).map((key) => `${key}\n${c.orderId}`)));
  const copies = new Map<string, { customer: string; orderId: string; products: string[]; at: Date }>();
  for (const row of rows) {
    const copy = `${row.customer}\n${row.order_id}`;
    if (!wanted.has(copy)) continue;
    const order = copies.get(copy);
    if (order === undefined) {
      const found = {
        customer: row.customer,
        orderId: row.order_id,
        products: [row.product_id],
        at: new Date(row.placed * 1_000),
      };
      copies.set(copy, found);
      orders.set(row.order_id, [...(orders.get(row.order_id) ?? []), found]);
    } else order.products.push(row.product_id);
  }
  return orders;
}
