import type { ServiceImpl } from "@connectrpc/connect";
import type { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import type { Catalog } from "./catalog.js";
import { toProductSummary } from "./product-handler.js";

/** Internal: peers that name products (the Recommendation service) read them here, active only. */
export function createLookupHandler(catalog: Catalog): ServiceImpl<typeof ProductLookupService> {
  return {
    async getActiveProducts(req, ctx) {
      return { products: (await catalog.activeProducts(req.productIds, ctx.signal)).map(toProductSummary) };
    },
  };
}
