import type { ServiceImpl } from "@connectrpc/connect";
import type { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import type { Orders } from "./orders.js";

/**
 * Internal: an order as other services need it. The Payment service checks an order before
 * a payment; the Product service's reservation sweeper releases a reservation only when this
 * answers NOT_FOUND for its order id.
 */
export function createPayableHandler(orders: Orders): ServiceImpl<typeof PayableOrderService> {
  return {
    async getPayableOrder(req, ctx) {
      const order = await orders.getPayableOrder(req.orderId, ctx.signal);
      return {
        orderId: order._id,
        customerId: order.customerId,
        // Absent until the owner backfill gave the order one: the caller asks again later.
        ...(order.customerUserId === undefined ? {} : { customerUserId: order.customerUserId }),
        status: order.status,
        totalMinor: BigInt(order.totalMinor),
      };
    },
  };
}
