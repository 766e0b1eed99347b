/**
 * The catalog domain: public reads of active products and categories, and the admin's single
 * create, update and soft delete. Bulk creation is in bulk-creation.ts; stock changes go
 * through the ledger (stock-ledger.ts).
 */
import { randomUUID } from "node:crypto";
import { conflict, invalid, notFound } from "@commerce/runtime/errors";
import type { EventFactory, RecordedChange, RecordedCollection } from "@commerce/runtime/events";
import type { Filter } from "@commerce/runtime/store";
import type { Clock } from "@commerce/runtime/time";
import {
  ProductDeletedSchema,
  ProductUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/product_events_pb.js";
import type { Categories } from "./categories.js";
import { toMinorUnits } from "@commerce/runtime/money";
import { checkDraft, inactiveNameKey, type ProductDraftInput } from "./product-draft.js";
import { insertProduct, nameTakenMessage } from "./product-insertion.js";
import type { CategoryDocument, ProductDocument } from "./product-store.js";
import type { StockLedger } from "./stock-ledger.js";
import { keepingTrace } from "@commerce/runtime/telemetry";

/** A product as reads show it: the document, its current stock and its category's name. */
export interface StockedProduct {
  readonly product: ProductDocument;
  readonly stock: number;
  readonly categoryName: string;
}

export interface ProductQuery {
  /** Zero-based. */
  readonly page: number;
  readonly size: number;
  /** A category id or name; empty for all. */
  readonly category: string;
  /** Exact brand; empty for all. */
  readonly brand: string;
}

export interface ProductPage {
  readonly content: readonly StockedProduct[];
  readonly totalElements: number;
  readonly totalPages: number;
}

export interface ProductChange {
  readonly price?: number | undefined;
  readonly stock?: number | undefined;
}

export interface Catalog {
  listProducts(query: ProductQuery, signal: AbortSignal): Promise<ProductPage>;
  /** An active product; NOT_FOUND otherwise. */
  getProduct(productId: string, signal: AbortSignal): Promise<StockedProduct>;
  listCategories(): readonly CategoryDocument[];
  /** Returns the new product's id. */
  createProduct(draft: ProductDraftInput, signal: AbortSignal): Promise<string>;
  updateProduct(productId: string, change: ProductChange, signal: AbortSignal): Promise<void>;
  /** Soft delete: the product becomes inactive and leaves every read. */
  deleteProduct(productId: string, signal: AbortSignal): Promise<void>;
  /** Products that exist (active or deleted, not pending), with their stock, for order pricing. */
  productsForOrder(productIds: readonly string[], signal: AbortSignal): Promise<StockedProduct[]>;
  /** The active products among `productIds`, in their order, each once. */
  activeProducts(productIds: readonly string[], signal: AbortSignal): Promise<StockedProduct[]>;
}

export interface CatalogDeps {
  /** Products, written with their events in the same write. */
  readonly products: RecordedCollection<ProductDocument>;
  readonly categories: Categories;
  readonly ledger: StockLedger;
  readonly events: EventFactory;
  readonly clock: Clock;
}

export const productNotFound = "product not found";

export function createCatalog(deps: CatalogDeps): Catalog {
  const { products, categories, ledger } = deps;
  const insertion = { products, ledger, events: deps.events, clock: deps.clock };

  async function stocked(product: ProductDocument, signal: AbortSignal): Promise<StockedProduct> {
    return {
      product,
      stock: await ledger.balance(product._id, signal),
      categoryName: categories.byId(product.categoryId)?.name ?? "",
    };
  }

  /** The products among `productIds` that `kept` keeps, in their order, each once, with their stock. */
  async function stockedAmong(
    productIds: readonly string[],
    kept: (product: ProductDocument) => boolean,
    signal: AbortSignal,
  ): Promise<StockedProduct[]> {
    // One read by `_id` each rather than one `$in` query: FerretDB scans for anything but `_id`.
    const found = await Promise.all([...new Set(productIds)].map((id) => products.get(id, signal)));
    return Promise.all(
      found
        .filter((product): product is ProductDocument => product !== undefined && kept(product))
        .map((product) => stocked(product, signal)),
    );
  }

  async function activeProduct(productId: string, signal?: AbortSignal): Promise<ProductDocument> {
    const product = await products.get(productId, signal);
    if (product?.status !== "ACTIVE") throw notFound(productNotFound);
    return product;
  }

  /**
   * A recorded change of an active product; NOT_FOUND once the product is not active.
   * Without a signal once an earlier write of the same request has happened: a request that
   * has begun changing things finishes, even if its client went away.
   */
  async function changeActive(
    productId: string,
    change: (current: ProductDocument) => RecordedChange<ProductDocument>,
    signal?: AbortSignal,
  ): Promise<void> {
    const outcome = await products.change(
      productId,
      (current) => {
        if (current.status !== "ACTIVE") throw notFound(productNotFound);
        return change(current);
      },
      signal,
    );
    if (outcome === undefined) throw notFound(productNotFound);
  }

  return {
    async listProducts(query, signal) {
      let categoryId: string | undefined;
      if (query.category !== "") {
        categoryId = categories.resolveFilter(query.category)?._id;
        if (categoryId === undefined) return { content: [], totalElements: 0, totalPages: 0 };
      }
      const filter: Filter<ProductDocument> = {
        status: "ACTIVE",
        ...(categoryId === undefined ? {} : { categoryId }),
        ...(query.brand === "" ? {} : { brand: query.brand }),
      };
      const [totalElements, page] = await Promise.all([
        products.count(filter, signal),
        products.find(filter, {
          sort: [{ field: "createdAt", direction: -1 }],
          skip: query.page * query.size,
          limit: query.size,
          signal,
        }),
      ]);
      return {
        content: await Promise.all(page.map((product) => stocked(product, signal))),
        totalElements,
        totalPages: Math.ceil(totalElements / query.size),
      };
    },

    async getProduct(productId, signal) {
      return stocked(await activeProduct(productId, signal), signal);
    },

    listCategories: () => categories.list(),

    async createProduct(draft, signal) {
      const product = checkDraft(draft, categories, "product");
      // The unique index decides races; this read only spares the common conflict a write.
      if ((await products.findOne({ nameKey: product.nameKey }, { signal })) !== undefined) {
        throw conflict(nameTakenMessage);
      }
      const doc = await insertProduct(insertion, product, "ACTIVE", signal);
      return doc._id;
    },

    async updateProduct(productId, change, signal) {
      let priceMinor: number | undefined;
      if (change.price !== undefined) {
        priceMinor = toMinorUnits(change.price);
        if (priceMinor === undefined) throw invalid("price: must have at most two decimals");
      }
      await activeProduct(productId, signal);
      let stock: number;
      if (change.stock === undefined) {
        stock = await ledger.balance(productId, signal);
      } else {
        // An absolute target: the ledger appends target - current, recomputed on every retry,
        // so a reservation racing with this update is never lost (see stock-ledger.ts).
        await ledger.append(
          {
            productId,
            key: `admin:${randomUUID()}`,
            reason: "ADMIN_UPDATE",
            amount: { setTo: change.stock },
          },
          keepingTrace(signal),
        );
        stock = change.stock;
      }
      await changeActive(
        productId,
        (current) => {
          const next = { ...current, priceMinor: priceMinor ?? current.priceMinor };
          const updated = deps.events.event(
            ProductUpdatedSchema,
            { productId, name: next.name, priceMinor: BigInt(next.priceMinor), stock },
            productId,
          );
          return { next, events: [updated] };
        },
        change.stock === undefined ? signal : keepingTrace(signal),
      );
    },

    async deleteProduct(productId, signal) {
      await changeActive(
        productId,
        (current) => ({
          next: { ...current, status: "INACTIVE", nameKey: inactiveNameKey(productId) },
          events: [deps.events.event(ProductDeletedSchema, { productId, name: current.name }, productId)],
        }),
        signal,
      );
    },

    productsForOrder(productIds, signal) {
      return stockedAmong(productIds, (product) => product.status !== "PENDING", signal);
    },

    activeProducts(productIds, signal) {
      return stockedAmong(productIds, (product) => product.status === "ACTIVE", signal);
    },
  };
}
