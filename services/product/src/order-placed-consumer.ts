/**
 * Consumes order-events: ORDER_PLACED commits the order's reservation (HELD → COMMITTED), so the
 * reservation sweeper only ever looks at reservations whose order it has not heard of, the ones
 * a crash may have left behind (reservations.ts). Without it every order's reservation waited
 * for the sweeper, and under load the sweeper fell so far behind that leaked stock came back
 * after many minutes, or never (ADR 0048).
 *
 * Idempotent: committing a reservation that is not HELD changes nothing. Only the event's
 * subject (the order id) is read.
 */
import { type EventHandler, eventContract } from "@commerce/runtime/events";
import { OrderPlacedSchema } from "@commerce/runtime/gen/commerce/events/v1/order_events_pb.js";
import type { Reservations } from "./reservations.js";

export const orderTopic = eventContract(OrderPlacedSchema).topic;

export function createOrderPlacedConsumer(reservations: Reservations): EventHandler {
  const { type } = eventContract(OrderPlacedSchema);
  return async (record, signal) => {
    if (record.type !== type) return; // ORDER_STATUS_UPDATED: releases arrive as RPCs
    await reservations.commit(record.subject, signal);
  };
}
