/**
 * Writing a new product, shared by single and bulk creation: the INITIAL ledger entry first,
 * then the product document. In that order because an entry without a product is harmless (no
 * one reads it), while a product without its entry would read as out of stock.
 */
import { randomUUID } from "node:crypto";
import { conflict } from "@commerce/runtime/errors";
import type { EventFactory, OutboxEntry, RecordedCollection, Unrecorded } from "@commerce/runtime/events";
import { DuplicateKeyError } from "@commerce/runtime/store";
import type { Clock } from "@commerce/runtime/time";
import { ProductCreatedSchema } from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";
import { generateSku, type NewProduct } from "./product-draft.js";
import type { ProductDocument, ProductStatus } from "./product-store.js";
import type { StockLedger } from "./stock-ledger.js";
import { keepingTrace } from "@commerce/runtime/telemetry";

export interface ProductInsertionDeps {
  readonly products: RecordedCollection<ProductDocument>;
  readonly ledger: StockLedger;
  readonly events: EventFactory;
  readonly clock: Clock;
}

export const nameTakenMessage = "an active product with this name and brand already exists";

/** Attempts at drawing an unused SKU (40 random bits each: a second draw is already rare). */
const maxSkuAttempts = 5;

/** PRODUCT_CREATED for `product`, whose stock is `stock`. */
export function productCreated(
  events: EventFactory,
  product: Unrecorded<ProductDocument>,
  stock: number,
): OutboxEntry {
  return events.event(
    ProductCreatedSchema,
    {
      productId: product._id,
      name: product.name,
      priceMinor: BigInt(product.priceMinor),
      stock,
      brand: product.brand,
      categoryId: product.categoryId,
      sku: product.sku,
    },
    product._id,
  );
}

/**
 * Stores `product` with `status`. An ACTIVE product carries its PRODUCT_CREATED in the same
 * write; a PENDING one carries nothing until it is activated. Throws a conflict when an active
 * or pending product already holds the name and brand (the unique index decides, so two
 * concurrent creations cannot both win). Not cut short by the caller's `signal`, only joined to
 * its trace: once the ledger entry is written, the product is written too, whether or not the
 * client still waits.
 */
export async function insertProduct(
  deps: ProductInsertionDeps,
  product: NewProduct,
  status: Extract<ProductStatus, "ACTIVE" | "PENDING">,
  callerSignal: AbortSignal | undefined,
  batch?: { readonly id: string; readonly size: number },
): Promise<ProductDocument> {
  const signal = keepingTrace(callerSignal);
  const id = randomUUID();
  await deps.ledger.append(
    { productId: id, key: `initial:${id}`, reason: "INITIAL", amount: { setTo: product.stock } },
    signal,
  );
  for (let attempt = 0; attempt < maxSkuAttempts; attempt++) {
    const draft: Unrecorded<ProductDocument> = {
      _id: id,
      name: product.name,
      description: product.description,
      priceMinor: product.priceMinor,
      brand: product.brand,
      categoryId: product.categoryId,
      sku: generateSku(product.categoryId),
      status,
      nameKey: product.nameKey,
      createdAt: deps.clock().getTime(),
      ...(batch === undefined ? {} : { batchId: batch.id, batchSize: batch.size }),
    };
    const events = status === "ACTIVE" ? [productCreated(deps.events, draft, product.stock)] : [];
    try {
      return await deps.products.insert(draft, events, signal);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const holder = await deps.products.findOne({ nameKey: product.nameKey }, { signal });
      if (holder !== undefined) throw conflict(nameTakenMessage);
      // Otherwise the SKU was taken: draw another.
    }
  }
  throw new Error("could not draw an unused SKU");
}
