/**
 * Product names, remembered from PRODUCT_CREATED so that an out-of-stock notice can name the
 * product (PRODUCT_STOCK_UPDATED carries only its id). A product's events share its partition
 * key, so its PRODUCT_CREATED is consumed before any of its stock changes. Names never change
 * (only price and stock are updatable), so one insert per product is the whole story.
 */
import { DuplicateKeyError, type Collection } from "@commerce/runtime/store";
import type { ProductNameDocument } from "./notification-store.js";

export interface ProductNames {
  /** Idempotent. */
  remember(productId: string, name: string, signal?: AbortSignal): Promise<void>;
  /** The name, or undefined for a product this service never heard of. */
  nameOf(productId: string, signal?: AbortSignal): Promise<string | undefined>;
}

export function createProductNames(names: Collection<ProductNameDocument>): ProductNames {
  return {
    async remember(productId, name, signal) {
      try {
        await names.insert({ _id: productId, name }, signal);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error; // already known
      }
    },
    async nameOf(productId, signal) {
      return (await names.get(productId, signal))?.name;
    },
  };
}
