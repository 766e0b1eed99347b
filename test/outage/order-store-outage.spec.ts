/**
 * A store outage of minutes loses nothing (issue 41, ADR 0110, ADR 0112). On the multi-process
 * topology (Envoy and one process per service, on FerretDB, Kafka and ClickHouse:
 * support/outage-rig.ts), the Order process's connections to its store are cut for five
 * minutes (reset, and refused) by a TCP proxy between that one process and FerretDB: longer than
 * any retry budget the platform ever had (a consumer's 8 attempts over about 25 s) and the
 * driver's own waits (30 s by default). Meanwhile a customer pays two orders at the sandbox
 * checkout (one at the start of the cut, one four minutes in) and the admin deletes another
 * customer's account; then the store comes back.
 *
 * During the cut: the Order process turns not ready within 10 s, and a request for the
 * customer's orders is a fast 503 with Retry-After and the JSON error body. After it, with
 * nothing done by hand: both paid orders are CONFIRMED; the deleted account's token is refused
 * (401) by the Order, User, Notification and Payment services; the customer has every
 * notification the events imply, each exactly once, and the admin one per product created; the
 * analytics figures equal what the other endpoints show, revenue up by exactly the two payments;
 * no consumer group wrote a single dead letter (the dead-letter topics' offsets, read through
 * a Kafka admin client, did not move); no process exited.
 */
import { expect } from "chai";
import { setTimeout as delay } from "node:timers/promises";
import { adminLogin, registeredUser, type TestUser } from "../acceptance/support/accounts.js";
import { paise, settled } from "../acceptance/support/analytics-figures.js";
import { api } from "../acceptance/support/api.js";
import { myNotifications } from "../acceptance/support/notifications.js";
import {
  awaitOrderStatus,
  openPayment,
  sandboxCheckout,
  type OpenPayment,
} from "../acceptance/support/payments.js";
import { pollUntil } from "../acceptance/support/polling.js";
import { deadLettersWritten, grown } from "./support/dead-letters.js";
import { expectUnavailable, timed } from "./support/fast-failure.js";
import { startOutageRig, type OutageRig } from "./support/outage-rig.js";

/** How long the Order process's store is away. */
const cutMs = 5 * 60_000;
/** When, into the cut, the second order is paid: past every budget but the cut's own end. */
const latePaymentMs = 4 * 60_000;
/** How long a service may take to be seen not ready once its store is gone. */
const unreadyWithinMs = 10_000;
/** How long a request may take to answer 503 while the store is gone (the driver waited 30 s). */
const fastMs = 5_000;
/** How long the platform may take to catch up once the store is back (a consumer retries every 30 s at most). */
const catchUpMs = 180_000;

/** The Order process's own readiness (its `/readyz`, not Envoy's). */
async function orderReadiness(rig: OutageRig): Promise<number> {
  try {
    return (await fetch(`${rig.orderUrl}/readyz`, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}

const types = (notifications: readonly { eventType: string }[]): string[] =>
  notifications.map((n) => n.eventType).sort();

describe("a five-minute outage of the Order process's store (multi-process topology)", function () {
  this.timeout(20 * 60_000);
  let rig: OutageRig | undefined;
  const started = Date.now();

  before(async function () {
    this.timeout(6 * 60_000);
    rig = await startOutageRig();
  });

  after(async () => {
    await rig?.stop();
    process.stdout.write(`    the outage test took ${((Date.now() - started) / 1000).toFixed(0)} s in all\n`);
  });

  it("loses nothing: paid orders confirmed, the deleted account refused everywhere, notifications and figures exact, no dead letter", async () => {
    const { orderStore } = rig ?? expect.fail("the rig did not start");
    const admin = await adminLogin();
    const before = await settled(
      admin,
      "the figures to agree with the other endpoints before the test writes",
    );

    // Before the cut: two orders with their payments opened, and the account to delete.
    const payer = await registeredUser("outage-payer");
    const leaver = await registeredUser("outage-leaver");
    const leaverId = ((await api("GET", "/api/users/me", { token: leaver.token })).body as { id: number }).id;
    const early = await openPayment(payer.token, 12.34);
    const late = await openPayment(payer.token, 5.67);
    // The consumers have caught up with what came before: only the cut's effects wait after it.
    await pollUntil(
      "the payer's notifications of both orders",
      async () => {
        const seen = types(await myNotifications(payer.token));
        return seen.filter((t) => t === "PAYMENT_CREATED").length === 2 ? seen : undefined;
      },
      60_000,
    );
    const deadLettersBefore = await deadLettersWritten(rig?.kafkaBrokers ?? "");

    // The cut.
    const cutAt = performance.now();
    await orderStore.cut();
    const unready = await pollUntil(
      "the Order process to turn not ready",
      async () => ((await orderReadiness(rig!)) === 503 ? performance.now() - cutAt : undefined),
      unreadyWithinMs + 5_000,
    );
    expect(unready, "ms until the Order process is not ready").to.be.below(unreadyWithinMs);
    expectUnavailable(
      await timed(() => api("GET", "/api/orders/my", { token: payer.token })),
      fastMs,
      "just after the cut",
    );

    await sandboxCheckout(payer.token, early.providerOrderId, "paid");
    const deleted = await api("DELETE", `/api/users/${leaverId}`, { token: admin });
    expect(deleted.status, deleted.text).to.equal(204);

    // The store stays away; the Order process stays up, not ready, and answers fast.
    for (let at = 30_000; at < latePaymentMs; at += 30_000) {
      await delay(Math.max(0, at - (performance.now() - cutAt)));
      expect(await orderReadiness(rig!), `readiness ${at / 1000} s into the cut`).to.equal(503);
      expectUnavailable(
        await timed(() => api("GET", "/api/orders/my", { token: payer.token })),
        fastMs,
        `${at / 1000} s into the cut`,
      );
    }
    await delay(Math.max(0, latePaymentMs - (performance.now() - cutAt)));
    await sandboxCheckout(payer.token, late.providerOrderId, "paid");
    await delay(Math.max(0, cutMs - (performance.now() - cutAt)));
    expect(await orderReadiness(rig!), "readiness at the end of the cut").to.equal(503);
    expect(rig?.cluster.problems(), "processes that exited during the cut").to.deep.equal([]);

    // The store is back: nothing is done by hand from here on.
    await orderStore.restore();
    await pollUntil(
      "the Order process to be ready again by itself",
      async () => ((await orderReadiness(rig!)) === 200 ? true : undefined),
      30_000,
    );
    await pollUntil(
      "Envoy to send the Order service requests again",
      async () =>
        (await api("GET", "/api/orders/my", { token: payer.token })).status === 200 ? true : undefined,
      30_000,
    );
    for (const paid of [early, late])
      await awaitOrderStatus(payer.token, paid.orderId, "CONFIRMED", catchUpMs);
    await refusedEverywhere(leaver);
    await notifiedExactlyOnce(payer, [early, late]);
    await productsAnnouncedOnce(admin, payer, [early, late]);

    const added = paise(12.34) + paise(5.67);
    const after = await settled(
      admin,
      "the figures to agree with the other endpoints and show both payments",
      (figures) => paise(figures.dashboard.totalRevenue) === paise(before.dashboard.totalRevenue) + added,
      catchUpMs,
    );
    expect(after.dashboard.totalUsers, "users: the payer added, the leaver gone").to.equal(
      before.dashboard.totalUsers + 1,
    );
    expect(after.orders.totalOrders).to.equal(before.orders.totalOrders + 2);
    expect(after.orders.ordersByStatus["CONFIRMED"]).to.equal(
      (before.orders.ordersByStatus["CONFIRMED"] ?? 0) + 2,
    );

    expect(
      grown(deadLettersBefore, await deadLettersWritten(rig?.kafkaBrokers ?? "")),
      "dead letters",
    ).to.deep.equal([]);
    expect(rig?.cluster.problems(), "processes that exited").to.deep.equal([]);
  });
});

/** The deleted account's token is refused by each service that serves it something. */
async function refusedEverywhere(leaver: TestUser): Promise<void> {
  const paths = ["/api/orders/my", "/api/users/me", "/api/notifications", "/api/payments/my"];
  const statuses = await pollUntil(
    "the deleted account's token to be refused everywhere",
    async () => {
      const now = await Promise.all(
        paths.map(async (path) => (await api("GET", path, { token: leaver.token })).status),
      );
      return now.every((status) => status === 401) ? now : undefined;
    },
    catchUpMs,
  );
  expect(Object.fromEntries(paths.map((path, i) => [path, statuses[i]]))).to.deep.equal(
    Object.fromEntries(paths.map((path) => [path, 401])),
  );
}

/**
 * The payer's notifications are exactly what the events imply (one sign-in), each once: they
 * all arrive, and a while later there is still not one more.
 */
async function notifiedExactlyOnce(payer: TestUser, orders: readonly OpenPayment[]): Promise<void> {
  const expected = [
    "USER_REGISTERED",
    "USER_LOGIN",
    ...orders.flatMap(() => ["ORDER_PLACED", "PAYMENT_CREATED", "PAYMENT_SUCCESS", "ORDER_STATUS_UPDATED"]),
  ].sort();
  await pollUntil(
    "the payer's notifications",
    async () => (types(await myNotifications(payer.token)).length >= expected.length ? true : undefined),
    catchUpMs,
  );
  // Longer than a redelivery's pause after a failure (30 s at most): a duplicate would show.
  await delay(35_000);
  const notifications = await myNotifications(payer.token);
  expect(types(notifications)).to.deep.equal(expected);
  const confirmed = notifications.filter((n) => n.eventType === "ORDER_STATUS_UPDATED").map((n) => n.message);
  expect(confirmed.sort()).to.deep.equal(
    orders.map((order) => `Your order ${order.orderId} has been confirmed.`).sort(),
  );
}

/** The product of each order (one each) was announced to the admin once: by its name. */
async function productsAnnouncedOnce(
  admin: string,
  payer: TestUser,
  orders: readonly OpenPayment[],
): Promise<void> {
  const names: string[] = [];
  for (const { orderId } of orders) {
    const order = await api("GET", `/api/orders/${encodeURIComponent(orderId)}`, { token: payer.token });
    expect(order.status, order.text).to.equal(200);
    const [item] = (order.body as { items: { productId: string }[] }).items;
    const product = await api("GET", `/api/products/${encodeURIComponent(item?.productId ?? "")}`);
    expect(product.status, product.text).to.equal(200);
    names.push((product.body as { name: string }).name);
  }
  const announced = (await myNotifications(admin)).filter((n) => n.eventType === "PRODUCT_CREATED");
  expect(names.map((name) => announced.filter((n) => n.message.includes(name)).length)).to.deep.equal(
    names.map(() => 1),
  );
}
