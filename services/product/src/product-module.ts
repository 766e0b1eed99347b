/**
 * Wiring of the Product service: ports in, routes and background work out, no socket. The
 * background work is the outbox relay and one periodic sweep that settles stale reservations
 * and interrupted bulk creations.
 *
 * The sweep runs every `sweepIntervalMs` while it leaves something unsettled, and rests
 * otherwise (ADR 0091): resting, it looks once per TTL (or stale-batch age, the shorter).
 * Nothing becomes due sooner than that after it begins, so a reservation or a batch that began
 * just after a resting look (another replica's, left by a crash) is seen by the next one before
 * it is due, and leaked stock still returns within the TTL plus an interval.
 */
import { createClient } from "@connectrpc/connect";
import { createPeriodicTask } from "@commerce/runtime/background";
import {
  type Subscription,
  startConsumer,
  createEventFactory,
  createServiceOutbox,
} from "@commerce/runtime/events";
import type { ServiceContext, ServiceModule } from "@commerce/runtime/server";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { createBulkCreation } from "./bulk-creation.js";
import { createCatalog } from "./catalog.js";
import { createCategories } from "./categories.js";
import { createInventoryHandler } from "./inventory-handler.js";
import { createLookupHandler } from "./lookup-handler.js";
import { createProductHandler } from "./product-handler.js";
import { openProductCollections } from "./product-store.js";
import { createReservations } from "./reservations.js";
import { createOrderPlacedConsumer, orderTopic } from "./order-placed-consumer.js";
import { createStockLedger } from "./stock-ledger.js";

export interface ProductOptions {
  /**
   * Age after which the sweeper asks the Order service about a HELD reservation and releases
   * it when the order does not exist. The Order service must not write an order once this much
   * time has passed since it asked for the reservation (ADR 0042).
   */
  readonly reservationTtlMs?: number;
  /** How often the sweeper runs while it has something to settle (it rests otherwise). */
  readonly sweepIntervalMs?: number;
  /** Age after which a bulk creation still PENDING counts as interrupted. */
  readonly staleBatchMs?: number;
}

export const defaultProductOptions: Required<ProductOptions> = {
  reservationTtlMs: 2 * 60_000,
  sweepIntervalMs: 10_000,
  staleBatchMs: 2 * 60_000,
};

export async function buildProductService(
  ctx: ServiceContext,
  options: ProductOptions = {},
): Promise<ServiceModule> {
  const settings = { ...defaultProductOptions, ...options };
  const collections = await openProductCollections(ctx.store);
  const outbox = createServiceOutbox({ bus: ctx.bus, logger: ctx.logger, telemetry: ctx.telemetry });
  const products = outbox.track(collections.products);
  const events = createEventFactory("/commerce/product");
  const categories = createCategories(collections.categories);
  const ledger = createStockLedger({
    entries: outbox.track(collections.stockEntries),
    events,
    clock: ctx.clock,
  });
  const catalog = createCatalog({ products, categories, ledger, events, clock: ctx.clock });
  const bulk = createBulkCreation({
    products,
    categories,
    ledger,
    events,
    clock: ctx.clock,
    logger: ctx.logger,
    staleAfterMs: settings.staleBatchMs,
  });
  const reservations = createReservations({
    reservations: collections.reservations,
    products,
    ledger,
    orders: createClient(PayableOrderService, ctx.transport),
    clock: ctx.clock,
    logger: ctx.logger,
    ttlMs: settings.reservationTtlMs,
  });

  let placedOrders: Subscription | undefined;
  const sweeper = createPeriodicTask({
    intervalMs: settings.sweepIntervalMs,
    idleIntervalMs: Math.max(
      settings.sweepIntervalMs,
      Math.min(settings.reservationTtlMs, settings.staleBatchMs),
    ),
    run: async () => {
      const reserved = await reservations.sweep();
      const batches = await bulk.finishStaleBatches();
      return reserved.waiting || batches.waiting ? "done" : "idle";
    },
    logger: ctx.logger,
    failureMessage: "product sweep failed; retrying next period",
    recoveryMessage: "product sweep works again",
  });

  return {
    name: "product",
    services: [ProductService, InventoryService, ProductLookupService],
    register(router) {
      router.service(ProductService, createProductHandler(catalog, bulk));
      router.service(InventoryService, createInventoryHandler(catalog, reservations));
      router.service(ProductLookupService, createLookupHandler(catalog));
    },
    async start() {
      await categories.seed();
      outbox.start();
      placedOrders = await startConsumer(ctx.bus, {
        telemetry: ctx.telemetry,
        group: "product-service",
        topics: [orderTopic],
        handler: createOrderPlacedConsumer(reservations),
        logger: ctx.logger,
      });
      sweeper.start();
    },
    async stop() {
      await placedOrders?.close();
      await sweeper.stop();
      await outbox.stop();
    },
  };
}
