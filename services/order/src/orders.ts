/**
 * The Order domain: placing an order against the Product service's stock, reading orders
 * (owner or admin), the admin's status moves, and the internal lookup other services use. An
 * order's owner is the account that placed it, by user id (ADR 0100): its email is shown, never
 * compared.
 *
 * Placement, step by step (ADR 0041):
 *   1. one line per product (a repeated product is refused: 400);
 *   2. current prices and activity from the Product service (unknown or inactive: 404);
 *   3. the total in integer minor units, each line keeping its unit price;
 *   4. a new opaque order id, and `ReserveStock` for all lines or none (short: 400);
 *   5. the order document, with ORDER_PLACED in its outbox, in one insert.
 * A reservation whose order never gets written is released: by us when the insert fails, or
 * by the Product service's sweeper, which releases HELD reservations older than a TTL whose
 * order `GetPayableOrder` does not find. So we never start the insert once the reservation is
 * older than half that TTL: an order the sweeper might already consider missing is never
 * written.
 */
import { performance } from "node:perf_hooks";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { conflict, forbidden, invalid, notFound, unavailable } from "@commerce/runtime/errors";
import type { EventFactory, OutboxEntry, RecordedCollection, Unrecorded } from "@commerce/runtime/events";
import type { Caller } from "@commerce/runtime/identity";
import type { Logger } from "@commerce/runtime/logging";
import { insertOnce } from "@commerce/runtime/store";
import { createSequenceTime, formatTimestamp, type Clock } from "@commerce/runtime/time";
import {
  OrderPlacedSchema,
  OrderStatusUpdatedSchema,
} from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import type {
  InventoryService,
  PricedProduct,
} from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { minorUnitsFromWire } from "@commerce/runtime/money";
import type { OrderMetrics } from "./order-metrics.js";
import { canMove, type OrderStatus } from "./order-status.js";
import { newOrderId, type OrderDocument, type OrderItem } from "./order-store.js";
import type { StockReleases } from "./stock-releases.js";
import { keepingTrace } from "@commerce/runtime/telemetry";

export interface OrderLineRequest {
  readonly productId: string;
  readonly quantity: number;
}

export interface Orders {
  placeOrder(caller: Caller, lines: readonly OrderLineRequest[], signal: AbortSignal): Promise<OrderDocument>;
  /** The owner's (by user id) or, for an admin, anyone's order. */
  getOrder(caller: Caller, orderId: string, signal: AbortSignal): Promise<OrderDocument>;
  /** The caller's account's orders, newest first. */
  listMyOrders(caller: Caller, signal: AbortSignal): Promise<OrderDocument[]>;
  /** Every order, newest first (admin). */
  listOrders(signal: AbortSignal): Promise<OrderDocument[]>;
  /** An admin's move; cancelling also returns the order's stock. */
  updateStatus(orderId: string, status: OrderStatus, signal: AbortSignal): Promise<void>;
  /** Internal lookup (Payment; the Product service's reservation sweeper). */
  getPayableOrder(orderId: string, signal: AbortSignal): Promise<OrderDocument>;
}

export interface OrdersDeps {
  /** Orders, written with their events (ORDER_PLACED, ORDER_STATUS_UPDATED) in the same write. */
  readonly orders: RecordedCollection<OrderDocument>;
  readonly inventory: Client<typeof InventoryService>;
  readonly stockReleases: StockReleases;
  readonly events: EventFactory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: OrderMetrics;
}

const newestFirst = [
  { field: "placedAt", direction: -1 },
  { field: "_id", direction: -1 },
] as const;

export function createOrders(deps: OrdersDeps): Orders {
  const { orders, inventory, logger } = deps;
  /** "Newest first" is exact for orders placed back to back. */
  const placementTime = createSequenceTime();

  async function liveOrder(orderId: string, signal?: AbortSignal): Promise<OrderDocument> {
    const order = await orders.get(orderId, signal);
    if (order === undefined || order.status === "ABANDONED") throw notFound("order not found");
    return order;
  }

  async function priceLines(lines: readonly OrderLineRequest[], signal: AbortSignal): Promise<OrderItem[]> {
    let products: PricedProduct[];
    try {
      ({ products } = await inventory.getProductsForOrder(
        { productIds: lines.map((line) => line.productId) },
        { signal },
      ));
    } catch (error) {
      throw unavailable("the product service is unavailable; retry", error);
    }
    const byId = new Map(products.map((product) => [product.productId, product]));
    const items = lines.map((line) => {
      const product = byId.get(line.productId);
      if (product === undefined || !product.active) throw notFound(`product not found: ${line.productId}`);
      return { product, line };
    });
    // Refused before reserving anything when the stock is visibly short; ReserveStock decides
    // in every other case.
    for (const { product, line } of items) {
      if (product.stock < line.quantity) throw insufficientStock(line.productId);
    }
    return items.map(({ product, line }) => ({
      productId: line.productId,
      quantity: line.quantity,
      unitPriceMinor: minorUnitsFromWire(product.unitPriceMinor),
    }));
  }

  /** The NOT_FOUND of a line whose product went away between the lookup and the reservation. */
  async function missingProduct(items: readonly OrderItem[], signal: AbortSignal): Promise<Error> {
    try {
      const { products } = await inventory.getProductsForOrder(
        { productIds: items.map((item) => item.productId) },
        { signal },
      );
      const active = new Set(products.filter((p) => p.active).map((p) => p.productId));
      const gone = items.find((item) => !active.has(item.productId));
      if (gone !== undefined) return notFound(`product not found: ${gone.productId}`);
    } catch {
      // The answer stays NOT_FOUND, only less precise.
    }
    return notFound("product not found");
  }

  /**
   * Best effort: if it fails, the Product service's sweeper releases the reservation. Under the
   * request's trace, not cut short by its end.
   */
  async function releaseQuietly(orderId: string, signal: AbortSignal): Promise<void> {
    try {
      await inventory.releaseStock({ orderId }, { signal: keepingTrace(signal) });
    } catch (error) {
      logger.warn({ err: error, orderId, signal }, "reservation not released now; the product sweeper will");
    }
  }

  /**
   * Writes the order and its ORDER_PLACED once. A failed insert is settled by its id, which is
   * new and this placement's alone: whatever holds it is this order (it landed, its answer
   * lost). Nothing there: a tombstone (ABANDONED) under the same id answers for good; if it
   * goes in, the order never can, and the stock is released.
   */
  async function storeOrder(
    content: OrderContent,
    placed: OutboxEntry,
    signal: AbortSignal,
  ): Promise<OrderDocument> {
    const outcome = await insertOnce({
      insert: () => orders.insert(content, [placed], signal),
      read: () => orders.get(content._id, keepingTrace(signal)),
      isOurs: () => true,
      fence: () => orders.insert({ ...content, status: "ABANDONED" }, [], keepingTrace(signal)),
    });
    switch (outcome.kind) {
      case "inserted":
      case "ours":
        return outcome.doc;
      case "fenced":
        await releaseQuietly(content._id, signal);
        break;
      default:
        logger.error(
          { err: outcome.error, orderId: content._id, signal },
          "cannot tell whether an order was written",
        );
    }
    throw unavailable("the order could not be stored; retry", outcome.error);
  }

  return {
    async placeOrder(caller, lines, signal) {
      const seen = new Set<string>();
      for (const { productId } of lines) {
        if (seen.has(productId)) {
          throw invalid(`duplicate product in items: ${productId} (one line per product)`);
        }
        seen.add(productId);
      }
      const items = await priceLines(lines, signal);
      const totalMinor = items.reduce((sum, item) => sum + item.unitPriceMinor * item.quantity, 0);
      const orderId = newOrderId();

      // Measured from before the request leaves: never younger than the Product's own record.
      const reservingSince = performance.now();
      let reservation: { reserved: boolean; shortProductId: string; holdMs: bigint };
      try {
        reservation = await inventory.reserveStock(
          { orderId, lines: items.map(({ productId, quantity }) => ({ productId, quantity })) },
          { signal },
        );
      } catch (error) {
        // A product deactivated since the lookup: refused, nothing taken.
        if (ConnectError.from(error).code === Code.NotFound) throw await missingProduct(items, signal);
        await releaseQuietly(orderId, signal); // it may have been taken before the failure
        throw unavailable("the product service is unavailable; retry", error);
      }
      if (!reservation.reserved) {
        // No short product: the Product service gave the reservation up as too slow.
        if (reservation.shortProductId === "") throw tooSlow();
        throw insufficientStock(reservation.shortProductId);
      }
      // The Product service gives an orderless reservation back after `holdMs`: no order may be
      // written that late, so past half of it the order is given up (0: an older Product
      // service that does not say; nothing safe to assume).
      const holdMs = Number(reservation.holdMs);
      if (holdMs <= 0 || performance.now() - reservingSince > holdMs / 2) {
        await releaseQuietly(orderId, signal);
        throw tooSlow();
      }

      const now = deps.clock();
      const orderDate = formatTimestamp(now);
      const placed = deps.events.event(
        OrderPlacedSchema,
        {
          orderId,
          customerId: caller.email,
          customerUserId: caller.userId,
          totalAmountMinor: BigInt(totalMinor),
          items: items.map((item) => ({
            productId: item.productId,
            quantity: item.quantity,
            priceMinor: BigInt(item.unitPriceMinor),
          })),
          orderDate,
        },
        orderId,
      );
      const content: OrderContent = {
        _id: orderId,
        customerId: caller.email,
        customerUserId: caller.userId,
        status: "CREATED",
        orderDate,
        placedAt: placementTime(now),
        totalMinor,
        items,
        stockReleasePending: false,
      };
      const stored = await storeOrder(content, placed, signal);
      deps.metrics.orderPlaced();
      return stored;
    },

    async getOrder(caller, orderId, signal) {
      const order = await liveOrder(orderId, signal);
      if (caller.role !== "ADMIN" && order.customerUserId !== caller.userId) {
        throw forbidden("this order belongs to another customer");
      }
      return order;
    },

    listMyOrders(caller, signal) {
      return orders.find(
        { customerUserId: caller.userId, status: { $ne: "ABANDONED" } },
        { sort: newestFirst, signal },
      );
    },

    listOrders(signal) {
      return orders.find({ status: { $ne: "ABANDONED" } }, { sort: newestFirst, signal });
    },

    async updateStatus(orderId, status, signal) {
      const cancelling = status === "CANCELLED";
      // Judged against a fresh read on every attempt: of concurrent moves exactly one wins.
      const outcome = await orders.change(
        orderId,
        (current) => {
          if (current.status === "ABANDONED") throw notFound("order not found");
          const from = current.status;
          if (!canMove(from, status)) throw conflict(`invalid status transition: ${from} to ${status}`);
          const updated = deps.events.event(
            OrderStatusUpdatedSchema,
            {
              orderId,
              customerId: current.customerId,
              customerUserId: current.customerUserId ?? 0,
              previousStatus: from,
              status,
              totalAmountMinor: BigInt(current.totalMinor),
              updatedAt: formatTimestamp(deps.clock()),
            },
            orderId,
          );
          return {
            next: { ...current, status, stockReleasePending: current.stockReleasePending || cancelling },
            events: [updated],
          };
        },
        signal,
      );
      if (outcome === undefined) throw notFound("order not found");
      if (cancelling) await deps.stockReleases.release(orderId, signal);
    },

    getPayableOrder: liveOrder,
  };
}

/** An order's own content, as placement writes it (the outbox fields are the runtime's). */
type OrderContent = Unrecorded<OrderDocument>;

function insufficientStock(productId: string): Error {
  return invalid(`insufficient stock for product ${productId}`);
}

function tooSlow(): Error {
  return unavailable("the order could not be placed in time; retry");
}
