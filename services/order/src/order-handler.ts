import type { ServiceImpl } from "@connectrpc/connect";
import { invalid } from "@commerce/runtime/errors";
import { requireCaller } from "@commerce/runtime/identity";
import type { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { fromMinorUnits } from "@commerce/runtime/money";
import { isOrderStatus } from "./order-status.js";
import type { Orders } from "./orders.js";

/** REST: /api/orders, /api/orders/my, /api/orders/{orderId}, /api/orders/{orderId}/status. */
export function createOrderHandler(orders: Orders): ServiceImpl<typeof OrderService> {
  return {
    async placeOrder(req, ctx) {
      const order = await orders.placeOrder(requireCaller(ctx), req.items, ctx.signal);
      return { orderId: order._id, status: order.status, totalAmount: fromMinorUnits(order.totalMinor) };
    },
    async getOrder(req, ctx) {
      const order = await orders.getOrder(requireCaller(ctx), req.orderId, ctx.signal);
      return {
        orderId: order._id,
        customerId: order.customerId,
        status: order.status,
        orderDate: order.orderDate,
        totalAmount: fromMinorUnits(order.totalMinor),
        items: order.items.map((item) => ({
          productId: item.productId,
          quantity: item.quantity,
          price: fromMinorUnits(item.unitPriceMinor),
        })),
      };
    },
    async listMyOrders(_req, ctx) {
      const mine = await orders.listMyOrders(requireCaller(ctx), ctx.signal);
      return {
        orders: mine.map((order) => ({
          orderId: order._id,
          status: order.status,
          totalAmount: fromMinorUnits(order.totalMinor),
          orderDate: order.orderDate,
        })),
      };
    },
    async listOrders(_req, ctx) {
      const all = await orders.listOrders(ctx.signal);
      return {
        orders: all.map((order) => ({
          orderId: order._id,
          customerId: order.customerId,
          status: order.status,
          totalAmount: fromMinorUnits(order.totalMinor),
        })),
      };
    },
    async updateOrderStatus(req, ctx) {
      // The contract's `in` rule admits CONFIRMED and CANCELLED only; this narrows the type.
      if (!isOrderStatus(req.status)) throw invalid(`unknown order status: ${req.status}`);
      await orders.updateStatus(req.orderId, req.status, ctx.signal);
      return { message: "order status updated" };
    },
  };
}
