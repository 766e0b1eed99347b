/**
 * Bulk creation, all items or none, without a multi-document transaction (FerretDB has none):
 *   1. check every item (400) and the name-and-brand rule within the request and against the
 *      catalog (409) before writing anything: the ordinary refusals write nothing;
 *   2. write every product as PENDING, tagged with the batch id and size. PENDING products are
 *      invisible to every read and to orders, but hold their name and brand in the unique
 *      index, so a concurrent creation of the same product loses to them. If one write fails
 *      (that race, or the store), the pending ones are deleted again: they were never visible
 *      and never announced, so nothing was created;
 *   3. activate them one by one, each with its PRODUCT_CREATED in the same write.
 * A crash in step 2 or 3 leaves a batch PENDING. `finishStaleBatches` decides from what is
 * stored: a batch whose products are all written is activated (step 3 is only ever entered
 * with all of them written); any other is deleted. It only touches batches older than
 * `staleAfterMs`, far beyond any live request's deadline.
 */
import { randomUUID } from "node:crypto";
import { conflict } from "@commerce/runtime/errors";
import type { EventFactory, RecordedCollection } from "@commerce/runtime/events";
import { unchanged } from "@commerce/runtime/store";
import type { Logger } from "@commerce/runtime/logging";
import type { Clock } from "@commerce/runtime/time";
import type { Categories } from "./categories.js";
import { checkDraft, type NewProduct, type ProductDraftInput } from "./product-draft.js";
import { insertProduct, nameTakenMessage, productCreated } from "./product-insertion.js";
import type { ProductDocument } from "./product-store.js";
import type { StockLedger } from "./stock-ledger.js";
import { keepingTrace } from "@commerce/runtime/telemetry";

export interface BulkCreation {
  /** Creates every draft or none; returns the new ids in request order. */
  createAll(drafts: readonly ProductDraftInput[], signal: AbortSignal): Promise<string[]>;
  /**
   * Finishes or removes batches left PENDING by a crash; returns how many it handled, and
   * whether PENDING products remain that a later pass must look at (younger than
   * `staleAfterMs`: a creation under way, or one that will be stale then).
   */
  finishStaleBatches(): Promise<{ readonly handled: number; readonly waiting: boolean }>;
}

export interface BulkCreationDeps {
  /** Products, written with their events in the same write. */
  readonly products: RecordedCollection<ProductDocument>;
  readonly categories: Categories;
  readonly ledger: StockLedger;
  readonly events: EventFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Age after which a PENDING batch counts as abandoned. */
  readonly staleAfterMs: number;
}

export function createBulkCreation(deps: BulkCreationDeps): BulkCreation {
  const { products } = deps;
  const insertion = { products, ledger: deps.ledger, events: deps.events, clock: deps.clock };

  async function check(drafts: readonly ProductDraftInput[], signal: AbortSignal): Promise<NewProduct[]> {
    const items = drafts.map((draft, i) => checkDraft(draft, deps.categories, `products[${i}]`));
    const seen = new Map<string, number>();
    for (const [i, item] of items.entries()) {
      const first = seen.get(item.nameKey);
      if (first !== undefined) {
        throw conflict(`products[${i}]: same name and brand as products[${first}]`);
      }
      seen.set(item.nameKey, i);
    }
    const taken = await products.find({ nameKey: { $in: [...seen.keys()] } }, { signal });
    const first = items.findIndex((item) => taken.some((product) => product.nameKey === item.nameKey));
    if (first >= 0) throw conflict(`products[${first}]: ${nameTakenMessage}`);
    return items;
  }

  /** PENDING → ACTIVE with PRODUCT_CREATED; a no-op when it is active already. */
  async function activate(productId: string, signal?: AbortSignal): Promise<void> {
    // Read before the change: the decision must be pure, and a PENDING product's stock is its
    // INITIAL entry, which nothing else can change while the product is invisible to orders.
    const stock = await deps.ledger.balance(productId, signal);
    const outcome = await products.change(
      productId,
      (current) =>
        current.status === "PENDING"
          ? {
              next: { ...current, status: "ACTIVE" },
              events: [productCreated(deps.events, current, stock)],
            }
          : unchanged,
      signal,
    );
    if (outcome === undefined) throw new Error(`pending product ${productId} vanished`);
  }

  async function discard(pending: readonly ProductDocument[], signal?: AbortSignal): Promise<void> {
    for (const product of pending) await products.delete(product._id, signal);
  }

  return {
    async createAll(drafts, signal) {
      const items = await check(drafts, signal);
      const batch = { id: randomUUID(), size: items.length };
      const written: ProductDocument[] = [];
      try {
        for (const item of items) {
          written.push(await insertProduct(insertion, item, "PENDING", signal, batch));
        }
      } catch (error) {
        await discard(written, keepingTrace(signal));
        throw error;
      }
      const settling = keepingTrace(signal);
      for (const product of written) await activate(product._id, settling);
      return written.map((product) => product._id);
    },

    async finishStaleBatches() {
      const cutoff = deps.clock().getTime() - deps.staleAfterMs;
      // Oldest first: the stale ones, then (at most one more read's worth) the younger ones.
      const pending = await products.find(
        { status: "PENDING" },
        { sort: [{ field: "createdAt", direction: 1 }], limit: 100 },
      );
      const stale = pending.filter((product) => product.createdAt < cutoff);
      const waiting = stale.length < pending.length || pending.length === 100;
      const batches = new Set(stale.flatMap((product) => product.batchId ?? []));
      for (const batchId of batches) {
        const members = await products.find({ batchId });
        const size = members[0]?.batchSize ?? 0;
        const pending = members.filter((product) => product.status === "PENDING");
        if (members.length === size) {
          for (const product of pending) await activate(product._id);
          deps.logger.warn({ batchId, activated: pending.length }, "finished an interrupted bulk creation");
        } else {
          await discard(pending);
          deps.logger.warn({ batchId, removed: pending.length }, "removed an interrupted bulk creation");
        }
      }
      return { handled: batches.size, waiting };
    },
  };
}
