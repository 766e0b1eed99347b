/**
 * Returning a cancelled order's stock to the Product service, exactly once in effect.
 *
 * Cancelling sets `stockReleasePending` in the same compare-and-set that sets CANCELLED, so the
 * debt is recorded atomically with the cancellation. Then `ReleaseStock` is called (idempotent
 * by order id on the Product side) and the marker is cleared. A crash between the two, or a
 * Product outage, leaves the marker set; the background loop finds such orders and finishes
 * them. Calling ReleaseStock again for an order already released is a no-op there, so a retry
 * after an unknown outcome is safe; within this process concurrent requests for one order
 * share one call.
 *
 * The loop looks every `retryIntervalMs` only while it knows of work (ADR 0091): a release
 * that failed here arms it, and a pass that found nothing pending lets it rest. It passes at
 * start (what a previous run left) and, resting, at the runtime's safety interval: for what
 * another replica left when it crashed between a cancellation and its release.
 */
import type { Client } from "@connectrpc/connect";
import { createPeriodicTask, safetyPassIntervalMs } from "@commerce/runtime/background";
import type { Logger } from "@commerce/runtime/logging";
import { DomainError } from "@commerce/runtime/errors";
import type { RecordedCollection } from "@commerce/runtime/events";
import { unchanged } from "@commerce/runtime/store";
import type { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { keepingTrace } from "@commerce/runtime/telemetry";
import type { OrderDocument } from "./order-store.js";

export interface StockReleasesOptions {
  readonly orders: RecordedCollection<OrderDocument>;
  readonly inventory: Client<typeof InventoryService>;
  /** Pause between passes of the retry loop. */
  readonly retryIntervalMs: number;
  readonly logger: Logger;
}

export interface StockReleases {
  /**
   * Releases the stock of a cancelled order and clears its marker. Resolves false (and logs)
   * when the Product service could not be reached: the loop retries later. `signal` is the
   * cancelling request's: the release joins its trace, and is not cut short by it.
   */
  release(orderId: string, signal?: AbortSignal): Promise<boolean>;
  /** One pass over the orders whose release is pending; returns how many it settled. */
  retryPending(signal?: AbortSignal): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/** Orders looked at per pass; the next pass takes the rest. */
const batchSize = 100;

export function createStockReleases(options: StockReleasesOptions): StockReleases {
  const { orders, inventory, logger } = options;
  const inFlight = new Map<string, Promise<boolean>>();
  let failing = false;

  async function clearMarker(orderId: string, signal: AbortSignal): Promise<void> {
    try {
      await orders.change(
        orderId,
        (current) =>
          current.stockReleasePending ? { next: { ...current, stockReleasePending: false } } : unchanged,
        signal,
      );
    } catch (error) {
      if (!(error instanceof DomainError && error.kind === "conflict")) throw error;
      // Lost every race: the marker stays, and the loop calls ReleaseStock again (a no-op
      // there) and clears it then.
      loop.arm();
    }
  }

  async function releaseOnce(orderId: string, signal: AbortSignal): Promise<boolean> {
    // Settled meanwhile (by the request that cancelled, or by another pass): nothing owed.
    if ((await orders.get(orderId, signal))?.stockReleasePending !== true) return true;
    try {
      // Not the request's signal as it is (one that only carries its trace): a client that goes
      // away must not leave the debt half paid.
      await inventory.releaseStock({ orderId }, { signal });
    } catch (error) {
      if (!failing)
        logger.warn({ err: error, orderId }, "stock release failed; the retry loop will repeat it");
      failing = true;
      return false;
    }
    if (failing) logger.info({ orderId }, "stock releases work again");
    failing = false;
    await clearMarker(orderId, signal);
    return true;
  }

  /** One release of `orderId` at a time in this process: concurrent callers share it. */
  function shared(orderId: string, signal?: AbortSignal): Promise<boolean> {
    let call = inFlight.get(orderId);
    if (call === undefined) {
      call = releaseOnce(orderId, keepingTrace(signal)).finally(() => inFlight.delete(orderId));
      inFlight.set(orderId, call);
    }
    return call;
  }

  async function release(orderId: string, signal?: AbortSignal): Promise<boolean> {
    const released = await shared(orderId, signal);
    if (!released) loop.arm(); // the loop tries again within the retry interval
    return released;
  }

  /** One pass: how many pending orders it found, and how many of them it settled. */
  async function pass(signal?: AbortSignal): Promise<{ found: number; settled: number }> {
    const pending = await orders.find(
      { stockReleasePending: true },
      { limit: batchSize, ...(signal === undefined ? {} : { signal }) },
    );
    let settled = 0;
    for (const order of pending) {
      if (signal?.aborted === true) break;
      if (await shared(order._id)) settled++;
      else break; // the Product service is down: wait for the next pass
    }
    return { found: pending.length, settled };
  }

  const loop = createPeriodicTask({
    intervalMs: options.retryIntervalMs,
    idleIntervalMs: Math.max(options.retryIntervalMs, safetyPassIntervalMs),
    runAtStart: true,
    run: async (signal) => {
      const { found, settled } = await pass(signal);
      if (settled < found) return "done"; // some are left: again after the retry interval
      return found === batchSize ? "more" : "idle";
    },
    logger,
    failureMessage: "pending stock releases: pass failed",
    recoveryMessage: "pending stock releases: passes work again",
  });

  return {
    release,
    retryPending: async (signal) => (await pass(signal)).settled,
    start: () => loop.start(),
    async stop() {
      await loop.stop();
      await Promise.allSettled(inFlight.values());
    },
  };
}
