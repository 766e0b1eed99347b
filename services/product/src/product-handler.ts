import type { ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ProductService,
  ProductSummarySchema,
} from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import type { BulkCreation } from "./bulk-creation.js";
import type { Catalog, StockedProduct } from "./catalog.js";
import { fromMinorUnits } from "@commerce/runtime/money";

/** Public list size when the client sends none (the schema bounds it to 1..100). */
export const defaultPageSize = 20;

/** A product as the catalog's list shows it (and peers that name products, lookup-handler.ts). */
export function toProductSummary({
  product,
  stock,
  categoryName,
}: StockedProduct): MessageInitShape<typeof ProductSummarySchema> {
  return {
    id: product._id,
    name: product.name,
    price: fromMinorUnits(product.priceMinor),
    stock,
    brand: product.brand,
    category: categoryName,
  };
}

/**
 * REST: GET /api/products[/{productId}], GET /api/categories (public); POST, PUT, DELETE
 * /api/products[/{productId}] and POST /api/products/bulk (ADMIN, enforced by the access
 * interceptor from the proto option).
 */
export function createProductHandler(
  catalog: Catalog,
  bulk: BulkCreation,
): ServiceImpl<typeof ProductService> {
  return {
    async listProducts(req, ctx) {
      const page = await catalog.listProducts(
        { page: req.page ?? 0, size: req.size ?? defaultPageSize, category: req.category, brand: req.brand },
        ctx.signal,
      );
      return {
        content: page.content.map(toProductSummary),
        totalElements: page.totalElements,
        totalPages: page.totalPages,
      };
    },
    async getProduct(req, ctx) {
      return toProduct(await catalog.getProduct(req.productId, ctx.signal));
    },
    listCategories() {
      return { categories: catalog.listCategories().map((c) => ({ id: c._id, name: c.name })) };
    },
    async createProduct(req, ctx) {
      // The validation interceptor has enforced `required` on `product`.
      if (req.product !== undefined) await catalog.createProduct(req.product, ctx.signal);
      return { message: "product created" };
    },
    async updateProduct(req, ctx) {
      await catalog.updateProduct(req.productId, { price: req.price, stock: req.stock }, ctx.signal);
      return { message: "product updated" };
    },
    async deleteProduct(req, ctx) {
      await catalog.deleteProduct(req.productId, ctx.signal);
      return {};
    },
    async bulkCreateProducts(req, ctx) {
      const ids = await bulk.createAll(req.products, ctx.signal);
      return { message: `${ids.length} products created`, ids };
    },
  };
}

function toProduct({ product, stock, categoryName }: StockedProduct): {
  id: string;
  name: string;
  description: string;
  price: number;
  stock: number;
  sku: string;
  brand: string;
  category: string;
} {
  return {
    id: product._id,
    name: product.name,
    description: product.description,
    price: fromMinorUnits(product.priceMinor),
    stock,
    sku: product.sku,
    brand: product.brand,
    category: categoryName,
  };
}
