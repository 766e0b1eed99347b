/**
 * The Recommendation service's answers as the API gives them: the ranked ids of the reads
 * (recommendation-reads.ts), filled in by the Product service as its catalog list shows them.
 * The catalog is the truth about which products exist: a product it does not list (unknown or
 * deleted) has no recommendations (NOT_FOUND), and a product the rankings still name but the
 * catalog no longer lists (deleted, its event not consumed yet) is left out.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { notFound } from "@commerce/runtime/errors";
import type { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import type { ProductSummarySchema } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import type { RecommendationReads } from "./recommendation-reads.js";

export type ProductItem = MessageInitShape<typeof ProductSummarySchema>;

/** How many when the caller says nothing; the contract bounds a request to 1..20. */
export const defaultRecommendations = 4;

export interface Recommendations {
  /** Bought with `productId`; NOT_FOUND when the catalog does not list it. */
  forProduct(productId: string, size: number, signal: AbortSignal): Promise<ProductItem[]>;
  /** For the customer whose account's `customerKey` this is (purchase-facts.ts). */
  forCustomer(customer: string, size: number, signal: AbortSignal): Promise<ProductItem[]>;
}

export function createRecommendations(
  reads: RecommendationReads,
  catalog: Client<typeof ProductLookupService>,
): Recommendations {
  async function listed(productIds: readonly string[], signal: AbortSignal): Promise<ProductItem[]> {
    if (productIds.length === 0) return [];
    return (await catalog.getActiveProducts({ productIds: [...productIds] }, { signal })).products;
  }

  return {
    async forProduct(productId, size, signal) {
      // The product itself is asked with them: one call says whether it exists.
      const items = await listed([productId, ...(await reads.alsoBought(productId, size, signal))], signal);
      if (items[0]?.id !== productId) throw notFound("product not found");
      return items.slice(1);
    },
    async forCustomer(customer, size, signal) {
      return listed(await reads.forCustomer(customer, size, signal), signal);
    },
  };
}
