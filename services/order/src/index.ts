/**
 * `@commerce/order`: the Order service's module, and what other packages read of it: its
 * metrics, its statuses, the shape of its ids, and its documents (which its peers' migration
 * tests write as the Order service would have). The process starts by path (main.ts).
 */
export { buildOrderService, type OrderOptions } from "./order-module.js";
export { createOrderMetrics, type OrderMetrics } from "./order-metrics.js";
export { orderStatuses, type OrderStatus } from "./order-status.js";
export { newOrderId, openOrderCollections, type OrderDocument } from "./order-store.js";
