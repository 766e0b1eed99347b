/**
 * Test support: a stand-in for the Product service's internal InventoryService, with the
 * contract's semantics (all lines or none, idempotent by order id, release a no-op without a
 * reservation), call records, switchable outages and a slow reservation.
 */
import { Code, ConnectError, type ConnectRouter, type ServiceImpl } from "@connectrpc/connect";
import { setTimeout as delay } from "node:timers/promises";
import type { ServiceRoutes } from "@commerce/runtime/server/service-host.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";

export interface StandInProduct {
  priceMinor: number;
  stock: number;
  active: boolean;
  /** Stock reported by GetProductsForOrder when it differs (a read that went stale). */
  reportedStock?: number;
}

export interface InventoryStandIn extends ServiceRoutes {
  readonly products: Map<string, StandInProduct>;
  /** Order ids with a reservation, and its state. */
  readonly reservations: Map<string, { lines: { productId: string; quantity: number }[]; held: boolean }>;
  /** Every ReleaseStock call's order id, effective or not. */
  readonly releaseCalls: string[];
  readonly reserveCalls: string[];
  readonly lookups: string[][];
  /** Methods that fail as if the Product service were down. */
  readonly down: Set<"getProductsForOrder" | "reserveStock" | "releaseStock">;
  /** Delay before ReserveStock takes stock. */
  reserveDelayMs: number;
  /** The hold time ReserveStock answers (the Product service's reservation TTL). */
  holdMs: number;
  /** Runs when ReserveStock begins (e.g. an admin deactivating a product meanwhile). */
  beforeReserve: (() => void) | undefined;
  releasesOf(orderId: string): number;
}

export function createInventoryStandIn(): InventoryStandIn {
  const products = new Map<string, StandInProduct>();
  const reservations: InventoryStandIn["reservations"] = new Map();
  const releaseCalls: string[] = [];
  const reserveCalls: string[] = [];
  const lookups: string[][] = [];
  const down: InventoryStandIn["down"] = new Set();

  const impl: ServiceImpl<typeof InventoryService> = {
    getProductsForOrder(req) {
      if (down.has("getProductsForOrder")) throw new Error("product service is down");
      lookups.push([...req.productIds]);
      return {
        products: req.productIds.flatMap((productId) => {
          const product = products.get(productId);
          if (product === undefined) return [];
          return [
            {
              productId,
              unitPriceMinor: BigInt(product.priceMinor),
              active: product.active,
              stock: product.reportedStock ?? product.stock,
            },
          ];
        }),
      };
    },
    async reserveStock(req) {
      if (down.has("reserveStock")) throw new Error("product service is down");
      reserveCalls.push(req.orderId);
      if (standIn.reserveDelayMs > 0) await delay(standIn.reserveDelayMs);
      standIn.beforeReserve?.();
      if (req.lines.some((line) => products.get(line.productId)?.active !== true)) {
        throw new ConnectError("product not found", Code.NotFound);
      }
      const existing = reservations.get(req.orderId);
      const holdMs = BigInt(standIn.holdMs);
      if (existing !== undefined) return { reserved: existing.held, shortProductId: "", holdMs };
      const short = req.lines.find((line) => (products.get(line.productId)?.stock ?? 0) < line.quantity);
      if (short !== undefined) return { reserved: false, shortProductId: short.productId, holdMs };
      for (const line of req.lines) {
        const product = products.get(line.productId);
        if (product !== undefined) product.stock -= line.quantity;
      }
      reservations.set(req.orderId, {
        lines: req.lines.map(({ productId, quantity }) => ({ productId, quantity })),
        held: true,
      });
      return { reserved: true, shortProductId: "", holdMs };
    },
    releaseStock(req) {
      if (down.has("releaseStock")) throw new Error("product service is down");
      releaseCalls.push(req.orderId);
      const reservation = reservations.get(req.orderId);
      if (reservation?.held !== true) return { released: false };
      for (const line of reservation.lines) {
        const product = products.get(line.productId);
        if (product !== undefined) product.stock += line.quantity;
      }
      reservation.held = false;
      return { released: true };
    },
  };

  const standIn: InventoryStandIn = {
    services: [InventoryService],
    register: (router: Pick<ConnectRouter, "service">) => router.service(InventoryService, impl),
    products,
    reservations,
    releaseCalls,
    reserveCalls,
    lookups,
    down,
    reserveDelayMs: 0,
    holdMs: 120_000,
    beforeReserve: undefined,
    releasesOf: (orderId) => releaseCalls.filter((id) => id === orderId).length,
  };
  return standIn;
}
