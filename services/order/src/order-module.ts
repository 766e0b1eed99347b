/**
 * Wiring of the Order service: ports in, routes and background work (outbox relay, pending
 * stock releases, the payment-events consumer, the owner backfill) out, no socket. Its
 * migrations run first at start (ADR 0102).
 */
import { createClient } from "@connectrpc/connect";
import {
  type Subscription,
  startConsumer,
  createEventFactory,
  createServiceOutbox,
} from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { backfillMigration, createBackfillTask, migrateDocumentStore } from "@commerce/runtime/store";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { createOrderHandler } from "./order-handler.js";
import { createOrderMetrics } from "./order-metrics.js";
import { openOrderCollections } from "./order-store.js";
import { orderOwners } from "./order-owners.js";
import { createOrders } from "./orders.js";
import { createPayableHandler } from "./payable-handler.js";
import { createPaymentConsumer, paymentTopic } from "./payment-consumer.js";
import { createStockReleases } from "./stock-releases.js";

export interface OrderOptions {
  /** Pause between passes over cancelled orders whose stock release is pending. Default 5 s. */
  readonly releaseRetryIntervalMs?: number;
  /** Pause between the owner backfill's passes after its migration. Default: the safety pass's. */
  readonly ownerBackfillIntervalMs?: number;
}

export async function buildOrderService(
  ctx: ServiceContext,
  options: OrderOptions = {},
): Promise<ServiceModule> {
  const collections = await openOrderCollections(ctx.store);
  const inventory = createClient(InventoryService, ctx.transport);
  const outbox = createServiceOutbox({ bus: ctx.bus, logger: ctx.logger, telemetry: ctx.telemetry });
  const stored = outbox.track(collections.orders);
  const stockReleases = createStockReleases({
    orders: stored,
    inventory,
    retryIntervalMs: options.releaseRetryIntervalMs ?? 5_000,
    logger: ctx.logger,
  });
  const orders = createOrders({
    orders: stored,
    inventory,
    stockReleases,
    events: createEventFactory("/commerce/order"),
    clock: ctx.clock,
    logger: ctx.logger,
    metrics: createOrderMetrics(ctx.telemetry.meter),
  });
  const owners = orderOwners(stored, createClient(AccountService, ctx.transport));
  const ownersLater = createBackfillTask(owners, ctx.logger, options.ownerBackfillIntervalMs);
  let payments: Subscription | undefined;
  return {
    name: "order",
    services: [OrderService, PayableOrderService],
    register(router) {
      router.service(OrderService, createOrderHandler(orders));
      router.service(PayableOrderService, createPayableHandler(orders));
    },
    async start() {
      await migrateDocumentStore(ctx.store, [backfillMigration(1, owners)], { logger: ctx.logger });
      outbox.start();
      stockReleases.start();
      ownersLater.start();
      payments = await startConsumer(ctx.bus, {
        telemetry: ctx.telemetry,
        group: "order-service",
        topics: [paymentTopic],
        handler: createPaymentConsumer(orders, ctx.logger),
        logger: ctx.logger,
      });
    },
    async stop() {
      await payments?.close();
      await ownersLater.stop();
      await stockReleases.stop();
      await outbox.stop();
    },
  };
}
