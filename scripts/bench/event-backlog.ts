/**
 * The backlog the processor throughput bench publishes before the processor starts: `count`
 * events of a shop's recent past, in the order they happened, on the real topics.
 *
 * The mix, drawn from a fixed seed: each step of the history is a registration (12%), a login
 * (30%), an account deletion (0.4%), a product created or repriced (0.6%) or an order placed
 * (the rest), by a customer registered earlier and not deleted. An order's later events follow
 * it a few steps on, as the services publish them: most orders get a payment (PAYMENT_CREATED),
 * a tenth of those a declined attempt first (PAYMENT_FAILED), most of them succeed
 * (PAYMENT_SUCCESS, then ORDER_STATUS_UPDATED CREATED → CONFIRMED), and a fifth of the paid
 * ones are cancelled much later (CONFIRMED → CANCELLED). Times spread evenly over `spanMs`
 * ending at `end`, ascending with the position in the log.
 */
import type { EventRecord } from "@commerce/runtime/events";
import {
  deleted,
  loggedIn,
  newHistoryOrder,
  paid,
  paymentCreated,
  paymentFailed,
  placed,
  productCreated,
  productUpdated,
  registered,
  statusUpdated,
} from "./history-events.js";
import { between, seededRandom } from "./seeded-random.js";

export interface BacklogOptions {
  readonly count: number;
  /** The time of the last event. */
  readonly end: Date;
  /** How far back the first event lies. */
  readonly spanMs: number;
  readonly seed?: number;
}

/** An event whose time is decided when it takes its place in the log. */
type Pending = (when: Date) => EventRecord;

/** Products on sale when the history begins; price in minor units, by product number. */
const initialProducts = 200;

export function eventBacklog(options: BacklogOptions): EventRecord[] {
  const { count, spanMs } = options;
  const random = seededRandom(options.seed ?? 20_260_101);
  const first = options.end.getTime() - spanMs;
  const log: EventRecord[] = [];
  const append = (make: Pending): void => {
    if (log.length < count) log.push(make(new Date(first + Math.floor((spanMs * log.length) / count))));
  };

  const due = new Map<number, Pending[]>();
  let step = 0;
  const later = (at: number, make: Pending): void => {
    const list = due.get(at);
    if (list === undefined) due.set(at, [make]);
    else list.push(make);
  };

  const live: number[] = [];
  let lastUser = 0;
  const prices = Array.from({ length: initialProducts }, (_, i) => BigInt(100 + ((i * 7_919) % 50_000)));

  const placeOrder = (): void => {
    const userId = live[Math.floor(random() * live.length)] ?? 0;
    const product = Math.floor(random() * prices.length);
    const order = newHistoryOrder(userId, product, between(random, 1, 3), prices[product] ?? 100n);
    append((when) => placed(order, when));
    if (random() >= 0.8) return; // never paid: stays CREATED
    let at = step + between(random, 1, 10);
    later(at, (when) => paymentCreated(order, when));
    const declinedFirst = random() < 0.1;
    if (declinedFirst) {
      at += between(random, 1, 5);
      later(at, (when) => paymentFailed(order, 1, when));
    }
    if (random() >= 0.85) return; // given up on: the order stays CREATED
    at += between(random, 1, 5);
    const attempt = declinedFirst ? 2 : 1;
    later(at, (when) => paid(order, attempt, when));
    // The Order service confirms the order once it consumed PAYMENT_SUCCESS.
    later(at, (when) => statusUpdated(order, "CREATED", "CONFIRMED", when));
    if (random() < 0.2) {
      later(at + between(random, 200, 5_000), (when) => statusUpdated(order, "CONFIRMED", "CANCELLED", when));
    }
  };

  while (log.length < count) {
    for (const make of due.get(step) ?? []) append(make);
    due.delete(step);
    const roll = random();
    if (roll < 0.12 || live.length < 10) {
      const userId = ++lastUser;
      live.push(userId);
      append((when) => registered(userId, when));
    } else if (roll < 0.42) {
      const userId = live[Math.floor(random() * live.length)] ?? 0;
      append((when) => loggedIn(userId, when));
    } else if (roll < 0.424) {
      const index = Math.floor(random() * live.length);
      const userId = live[index] ?? 0;
      live[index] = live[live.length - 1] ?? 0;
      live.pop();
      append((when) => deleted(userId, when));
    } else if (roll < 0.427) {
      const product = prices.length;
      const price = BigInt(between(random, 100, 50_000));
      prices.push(price);
      append((when) => productCreated(product, price, when));
    } else if (roll < 0.43) {
      const product = Math.floor(random() * prices.length);
      const price = BigInt(between(random, 100, 50_000));
      prices[product] = price;
      append((when) => productUpdated(product, price, between(random, 0, 1_000), when));
    } else {
      placeOrder();
    }
    step += 1;
  }
  return log;
}

/** How many events of each type `records` holds, most frequent first: "USER_LOGIN 30%, …". */
export function describeMix(records: readonly EventRecord[]): string {
  const byType = new Map<string, number>();
  for (const record of records) byType.set(record.type, (byType.get(record.type) ?? 0) + 1);
  return [...byType]
    .sort((a, b) => b[1] - a[1])
    .map(([type, n]) => `${type} ${((100 * n) / records.length).toFixed(1)}%`)
    .join(", ");
}
