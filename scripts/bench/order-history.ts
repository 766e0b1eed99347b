/**
 * The history the endpoint-latency bench seeds its store with: `users` registrations and
 * `orders` orders spread evenly over the `days` before `now`, drawn from a fixed seed. Each
 * order is placed by a customer registered before it; 70% are paid (PAYMENT_SUCCESS 1 to 20
 * minutes later, then CONFIRMED a second after, as the Order service confirms a paid order),
 * and 15% of all orders are cancelled after that (CONFIRMED → CANCELLED, 1 to 72 hours later).
 * So 30% end CREATED, 55% CONFIRMED and 15% CANCELLED. A follow-up that would fall after `now`
 * does not happen yet.
 *
 * The events come as a stream, an order's events together (the store keeps no order of
 * arrival: every figure reads rows by id and status rank), so a million orders never sit in
 * memory at once.
 */
import type { EventRecord } from "@commerce/runtime/events";
import { newHistoryOrder, paid, placed, registered, statusUpdated } from "./history-events.js";
import { between, seededRandom } from "./seeded-random.js";

export interface OrderHistoryOptions {
  readonly orders: number;
  readonly users: number;
  readonly days: number;
  readonly now: Date;
  readonly seed?: number;
}

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
const products = 500;

export function* orderHistory(options: OrderHistoryOptions): Generator<EventRecord> {
  const random = seededRandom(options.seed ?? 365);
  const end = options.now.getTime();
  const spanMs = options.days * 24 * hourMs;
  const first = end - spanMs;
  let users = 0;
  for (let i = 0; i < options.orders; i++) {
    const placedAt = first + Math.floor((spanMs * (i + 0.5)) / options.orders);
    // Registrations keep pace with the orders: the customers up to this point exist.
    const registeredByNow = Math.max(1, Math.ceil(((i + 1) * options.users) / options.orders));
    while (users < registeredByNow) {
      users += 1;
      yield registered(users, new Date(first + Math.floor((spanMs * (users - 1)) / options.users)));
    }
    const product = Math.floor(random() * products);
    const order = newHistoryOrder(
      between(random, 1, users),
      product,
      between(random, 1, 3),
      BigInt(100 + ((product * 7_919) % 50_000)),
    );
    yield placed(order, new Date(placedAt));
    const fate = random();
    if (fate >= 0.7) continue; // never paid: CREATED
    const paidAt = placedAt + between(random, minuteMs, 20 * minuteMs);
    if (paidAt + 1_000 > end) continue;
    yield paid(order, 1, new Date(paidAt));
    yield statusUpdated(order, "CREATED", "CONFIRMED", new Date(paidAt + 1_000));
    if (fate >= 0.15) continue;
    const cancelledAt = paidAt + between(random, hourMs, 72 * hourMs);
    if (cancelledAt <= end) yield statusUpdated(order, "CONFIRMED", "CANCELLED", new Date(cancelledAt));
  }
}
