import type { ServiceImpl } from "@connectrpc/connect";
import type { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import type { Catalog } from "./catalog.js";
import type { Reservations } from "./reservations.js";

/** Internal: the Order service prices orders and reserves and releases their stock here. */
export function createInventoryHandler(
  catalog: Catalog,
  reservations: Reservations,
): ServiceImpl<typeof InventoryService> {
  return {
    async getProductsForOrder(req, ctx) {
      const found = await catalog.productsForOrder(req.productIds, ctx.signal);
      return {
        products: found.map(({ product, stock }) => ({
          productId: product._id,
          unitPriceMinor: BigInt(product.priceMinor),
          active: product.status === "ACTIVE",
          stock,
        })),
      };
    },
    async reserveStock(req, ctx) {
      const outcome = await reservations.reserve(
        req.orderId,
        req.lines.map((line) => ({ productId: line.productId, quantity: line.quantity })),
        ctx.signal,
      );
      return {
        reserved: outcome.reserved,
        shortProductId: outcome.shortProductId ?? "",
        holdMs: BigInt(reservations.holdMs),
      };
    },
    async releaseStock(req, ctx) {
      return { released: await reservations.release(req.orderId, ctx.signal) };
    },
  };
}
