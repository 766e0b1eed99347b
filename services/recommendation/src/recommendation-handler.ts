import type { ServiceImpl } from "@connectrpc/connect";
import { requireCaller } from "@commerce/runtime/identity";
import type {
  CustomerRecommendationService,
  RecommendationService,
} from "@commerce/runtime/gen/commerce/recommendation/v1/recommendation_pb.js";
import { customerKey } from "./purchase-facts.js";
import { defaultRecommendations, type Recommendations } from "./recommendations.js";

/** REST: GET /api/products/{productId}/recommendations (public), GET /api/recommendations/me. */
export function createRecommendationHandler(
  recommendations: Recommendations,
): ServiceImpl<typeof RecommendationService> {
  return {
    async getProductRecommendations(req, ctx) {
      return {
        products: await recommendations.forProduct(
          req.productId,
          req.size ?? defaultRecommendations,
          ctx.signal,
        ),
      };
    },
    async getMyRecommendations(req, ctx) {
      const customer = customerKey(requireCaller(ctx).userId);
      return {
        products: await recommendations.forCustomer(customer, req.size ?? defaultRecommendations, ctx.signal),
      };
    },
  };
}

/** Internal: a peer asks for a customer's recommendations by user id (none: best sellers). */
export function createCustomerRecommendationHandler(
  recommendations: Recommendations,
): ServiceImpl<typeof CustomerRecommendationService> {
  return {
    async getCustomerRecommendations(req, ctx) {
      return {
        products: await recommendations.forCustomer(
          customerKey(req.userId),
          req.size ?? defaultRecommendations,
          ctx.signal,
        ),
      };
    },
  };
}
