/**
 * Stock reservations for orders (the internal InventoryService): all lines or none, idempotent
 * by order id, and never lost or leaked when a caller or this process crashes halfway.
 *
 * One `reservations` document per order id records what was decided; the stock itself moves
 * only through ledger entries with idempotency keys `reserve:<orderId>:<productId>` and
 * `release:<orderId>:<productId>` (stock-ledger.ts), so any step can be repeated by whoever
 * finds it unfinished, and a release always gives back exactly the quantity its reserve entry
 * took — never more, never twice.
 *
 * States (ReservationState): the call that inserts the document (PENDING) is the only one that
 * takes stock for it; it ends in HELD or REFUSED. Giving stock back is decided first
 * (→ RELEASING, by compare-and-set) and done second (release entries, then → RELEASED), so a
 * crash in between leaves a RELEASING document that the sweeper completes. Because the
 * decision is recorded before any release, a slow reserver whose PENDING document was given
 * up cannot turn it into HELD afterwards: its compare-and-set fails and it releases what it
 * took.
 *
 * The sweeper (`sweep`) covers a caller that crashed: a HELD reservation older than the TTL
 * whose order the Order service does not know (NOT_FOUND from PayableOrderService) is released;
 * one whose order exists is COMMITTED. A PENDING one older than the TTL (this process died while
 * reserving) is released. This relies on one promise of the Order service: it does not write an
 * order once the TTL has passed since it asked for the reservation (ADR 0048).
 * Residual: a reserver stalled for longer than the TTL that takes a line
 * after the sweeper released the others and then crashes before its own compensation leaks that
 * line's quantity.
 *
 * Writes take no abort signal: once a reservation has begun, it is finished (or undone) even if
 * the caller went away.
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { notFound, unavailable } from "@commerce/runtime/errors";
import type { Logger } from "@commerce/runtime/logging";
import type { RecordedCollection } from "@commerce/runtime/events";
import { changeDocument, unchanged, DuplicateKeyError, type Collection } from "@commerce/runtime/store";
import type { Clock } from "@commerce/runtime/time";
import type { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { productNotFound } from "./catalog.js";
import type {
  ProductDocument,
  ReservationDocument,
  ReservationState,
  ReservedLine,
} from "./product-store.js";
import type { StockLedger } from "./stock-ledger.js";
import { keepingTrace } from "@commerce/runtime/telemetry";

export interface ReserveOutcome {
  readonly reserved: boolean;
  /** When not reserved for lack of stock: the first product (by id) that was short. */
  readonly shortProductId?: string;
}

export interface Reservations {
  /** How long a reservation holds stock for an order never written (the TTL); ReserveStock says it. */
  readonly holdMs: number;
  /**
   * Takes every line or none. NOT_FOUND when a product is unknown or inactive. In each of these
   * three, `signal` is the caller's: the work joins its trace, and runs to its end whatever
   * becomes of the caller (stock taken must be settled).
   */
  reserve(orderId: string, lines: readonly ReservedLine[], signal?: AbortSignal): Promise<ReserveOutcome>;
  /** Gives back what the order's reservation took; false when it held nothing. */
  release(orderId: string, signal?: AbortSignal): Promise<boolean>;
  /** The order was written (ORDER_PLACED): its HELD reservation is COMMITTED; else nothing. */
  commit(orderId: string, signal?: AbortSignal): Promise<void>;
  /** One pass of the sweeper (see the module comment). */
  sweep(): Promise<SweepOutcome>;
}

/** What a sweep did, and whether a later one has something to do. */
export interface SweepOutcome {
  /** Reservations it settled. */
  readonly settled: number;
  /**
   * Reservations it left unsettled: not due yet (younger than the TTL), or whose settling
   * failed. None: the sweeper may rest (ADR 0091).
   */
  readonly waiting: boolean;
}

export interface ReservationsDeps {
  readonly reservations: Collection<ReservationDocument>;
  /** Read only: whether each product is active. */
  readonly products: Pick<RecordedCollection<ProductDocument>, "get">;
  readonly ledger: StockLedger;
  /** The Order service's internal lookup: does this order exist? */
  readonly orders: Client<typeof PayableOrderService>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Age after which a HELD or PENDING reservation is checked by the sweeper. */
  readonly ttlMs: number;
  /** How long a repeated call waits for the first call of the same order to finish. */
  readonly settleWaitMs?: number;
}

/** Reservations the sweeper reads at a time. */
const sweepPageSize = 100;

const reserveKey = (orderId: string, productId: string): string => `reserve:${orderId}:${productId}`;
const releaseKey = (orderId: string, productId: string): string => `release:${orderId}:${productId}`;

/** One line per product (repeated products summed), sorted by product id. */
export function mergeLines(lines: readonly ReservedLine[]): ReservedLine[] {
  const quantities = new Map<string, number>();
  for (const line of lines) {
    quantities.set(line.productId, (quantities.get(line.productId) ?? 0) + line.quantity);
  }
  return [...quantities]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([productId, quantity]) => ({ productId, quantity }));
}

export function createReservations(deps: ReservationsDeps): Reservations {
  const { reservations, products, ledger } = deps;
  const settleWaitMs = deps.settleWaitMs ?? 10_000;

  /**
   * Moves the reservation from one of `from` to `to`; false when it is in another state. `known`:
   * its content as this call last wrote it, tried first instead of reading it (a stale one only
   * costs the read after all).
   */
  async function transition(
    orderId: string,
    from: readonly ReservationState[],
    to: ReservationState,
    extra: Partial<Pick<ReservationDocument, "shortProductId" | "missingProductId" | "releasedFrom">>,
    signal: AbortSignal | undefined,
    known?: ReservationDocument,
  ): Promise<boolean> {
    const outcome = await changeDocument(
      reservations,
      orderId,
      (current) => (from.includes(current.state) ? { ...current, ...extra, state: to } : unchanged),
      signal,
      known,
    );
    return outcome?.changed === true;
  }

  /**
   * Appends the release entry of each line (idempotent by key). When every line is known to be
   * taken (the reservation reached HELD, or the caller took them itself) the quantity is the
   * line's; otherwise each line's reserve entry is looked up, and only what it took returns.
   */
  async function giveBack(
    orderId: string,
    lines: readonly ReservedLine[],
    taken: "all" | "unknown",
    signal: AbortSignal | undefined,
  ): Promise<void> {
    for (const line of lines) {
      let quantity = line.quantity;
      if (taken === "unknown") {
        const reserved = await ledger.entry(reserveKey(orderId, line.productId), signal);
        if (reserved === undefined) continue;
        quantity = -reserved.delta;
      }
      await ledger.append(
        {
          productId: line.productId,
          key: releaseKey(orderId, line.productId),
          reason: "ORDER_RELEASED",
          orderId,
          amount: { delta: quantity },
        },
        signal,
      );
    }
  }

  /** Finishes a decided release: the entries, then RELEASED. Safe to run concurrently. */
  async function completeRelease(orderId: string, signal?: AbortSignal): Promise<void> {
    const current = await reservations.get(orderId, signal);
    if (current?.state !== "RELEASING") return;
    const held = current.releasedFrom === "HELD" || current.releasedFrom === "COMMITTED";
    await giveBack(orderId, current.lines, held ? "all" : "unknown", signal);
    await transition(orderId, ["RELEASING"], "RELEASED", {}, signal);
  }

  /** Gives up a reservation that is still PENDING (its reserver failed or vanished). */
  async function abandon(orderId: string, signal?: AbortSignal): Promise<void> {
    if (await transition(orderId, ["PENDING"], "RELEASING", { releasedFrom: "PENDING" }, signal)) {
      await completeRelease(orderId, signal);
    }
  }

  /** The reservation once its first call has finished with it (waits while it is PENDING). */
  async function settled(orderId: string, signal: AbortSignal): Promise<ReservationDocument | undefined> {
    const deadline = Date.now() + settleWaitMs;
    for (;;) {
      const current = await reservations.get(orderId, signal);
      if (current?.state !== "PENDING") return current;
      if (Date.now() > deadline)
        throw unavailable("the reservation of this order is still being made; retry");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** What a repeated ReserveStock answers, from what the first one recorded. */
  function answer(reservation: ReservationDocument | undefined): ReserveOutcome {
    switch (reservation?.state) {
      case "HELD":
      case "COMMITTED":
        return { reserved: true };
      case "REFUSED":
        if (reservation.missingProductId !== undefined) throw notFound(productNotFound);
        return { reserved: false, ...pickShort(reservation) };
      default:
        return { reserved: false };
    }
  }

  /** The reserver's part: check the products, take each line, or undo and refuse. */
  async function take(reservation: ReservationDocument, signal: AbortSignal): Promise<ReserveOutcome> {
    const orderId = reservation._id;
    const found = await Promise.all(reservation.lines.map((line) => products.get(line.productId, signal)));
    const missing = reservation.lines.find((_, i) => found[i]?.status !== "ACTIVE");
    if (missing !== undefined) {
      await transition(orderId, ["PENDING"], "REFUSED", { missingProductId: missing.productId }, signal);
      throw notFound(productNotFound);
    }
    const taken: ReservedLine[] = [];
    for (const line of reservation.lines) {
      const outcome = await ledger.append(
        {
          productId: line.productId,
          key: reserveKey(orderId, line.productId),
          reason: "ORDER_RESERVED",
          orderId,
          amount: { delta: -line.quantity },
        },
        signal,
      );
      if (outcome.kind === "insufficient") {
        await giveBack(orderId, taken, "all", signal);
        await transition(orderId, ["PENDING"], "REFUSED", { shortProductId: line.productId }, signal);
        return { reserved: false, shortProductId: line.productId };
      }
      taken.push(line);
    }
    if (await transition(orderId, ["PENDING"], "HELD", {}, signal, reservation)) return { reserved: true };
    // The sweeper gave this reservation up while it was being made (slower than the TTL):
    // return what this call took; the sweeper's release may have missed it.
    await giveBack(orderId, taken, "all", signal);
    return { reserved: false };
  }

  /** The sweeper's decision for one HELD reservation past the TTL. */
  async function settleHeld(orderId: string): Promise<void> {
    try {
      await deps.orders.getPayableOrder({ orderId }, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      if (ConnectError.from(error).code !== Code.NotFound) throw error; // unknown: ask again later
      if (await transition(orderId, ["HELD"], "RELEASING", { releasedFrom: "HELD" }, undefined)) {
        await completeRelease(orderId);
        deps.logger.warn({ orderId }, "released the stock of a reservation whose order was never written");
      }
      return;
    }
    await transition(orderId, ["HELD"], "COMMITTED", {}, undefined);
  }

  return {
    holdMs: deps.ttlMs,

    async reserve(orderId, lines, callerSignal) {
      const signal = keepingTrace(callerSignal);
      const reservation: ReservationDocument = {
        _id: orderId,
        _v: 1,
        lines: mergeLines(lines),
        state: "PENDING",
        heldAt: deps.clock().getTime(),
      };
      try {
        await reservations.insert(reservation, signal);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        return answer(await settled(orderId, signal)); // a repeat: answer as the first call did
      }
      try {
        return await take(reservation, signal);
      } catch (error) {
        // Whatever failed, nothing may stay taken for an answer the caller never got.
        await abandon(orderId, signal).catch((cause: unknown) =>
          deps.logger.warn(
            { err: cause, orderId, signal },
            "could not undo a failed reservation; the sweeper will",
          ),
        );
        throw error;
      }
    },

    async release(orderId, callerSignal) {
      const signal = keepingTrace(callerSignal);
      for (;;) {
        const current = await settled(orderId, signal);
        if (current === undefined) {
          // Nothing reserved yet: leave a RELEASED record, so that a reservation for this order
          // arriving late (a delayed retry) is refused instead of holding stock nobody releases.
          try {
            await reservations.insert(
              {
                _id: orderId,
                _v: 1,
                lines: [],
                state: "RELEASED",
                heldAt: deps.clock().getTime(),
              },
              signal,
            );
            return false;
          } catch (error) {
            if (!(error instanceof DuplicateKeyError)) throw error;
            continue;
          }
        }
        switch (current.state) {
          case "HELD":
          case "COMMITTED":
            await transition(orderId, [current.state], "RELEASING", { releasedFrom: current.state }, signal);
            continue;
          case "RELEASING":
            await completeRelease(orderId, signal);
            continue;
          case "RELEASED":
            return current.releasedFrom === "HELD" || current.releasedFrom === "COMMITTED";
          default:
            return false; // REFUSED: nothing was held
        }
      }
    },

    async commit(orderId, signal) {
      await transition(orderId, ["HELD"], "COMMITTED", {}, keepingTrace(signal));
    },

    async sweep() {
      const cutoff = deps.clock().getTime() - deps.ttlMs;
      let settledCount = 0;
      let waiting = false;
      // Every due reservation in one pass, a page at a time: a pass that stopped after one page
      // left the rest for later passes, and leaked stock waited behind them. Pages come oldest
      // first, so the first one not due yet ends its state's part: the rest are younger.
      const each = async (
        state: ReservationState,
        settle: (orderId: string) => Promise<void>,
        olderThanTtl: boolean,
      ): Promise<void> => {
        // Each reservation is settled at most once per pass; one that failed waits for the next.
        const handled = new Set<string>();
        for (;;) {
          const limit = sweepPageSize + handled.size;
          const page = await reservations.find(
            { state },
            { sort: [{ field: "heldAt", direction: 1 }], limit },
          );
          const unseen = page.filter((reservation) => !handled.has(reservation._id));
          for (const reservation of unseen) {
            if (olderThanTtl && reservation.heldAt >= cutoff) {
              waiting = true;
              return;
            }
            handled.add(reservation._id);
            try {
              await settle(reservation._id);
              settledCount++;
            } catch (error) {
              waiting = true;
              deps.logger.warn({ err: error, orderId: reservation._id }, "reservation sweep: will retry");
            }
          }
          if (page.length < limit || unseen.length === 0) return;
        }
      };
      await each("RELEASING", completeRelease, false);
      await each("PENDING", abandon, true);
      await each("HELD", settleHeld, true);
      return { settled: settledCount, waiting };
    },
  };
}

function pickShort(reservation: ReservationDocument): { shortProductId?: string } {
  return reservation.shortProductId === undefined ? {} : { shortProductId: reservation.shortProductId };
}
