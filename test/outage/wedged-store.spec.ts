/**
 * A wedged store (issue 42): the MongoDB-protocol server every service shares stops answering
 * without closing a connection, as a FerretDB on PostgreSQL once did after one of its clients
 * was killed amid concurrent updates. On the multi-process topology (Envoy and one process per
 * service, support/outage-rig.ts) on a FerretDB of the test's own, that server is paused
 * (SIGSTOP: its sockets stay open, nothing is read or answered) for 30 s and then resumed;
 * then it is restarted, as an operator would restart a server that does not come back.
 *
 * While it is paused: every service whose store it is turns not ready within 10 s, and requests
 * through Envoy answer 503 with `Retry-After` and the JSON error body, the first within 15 s
 * (the driver's monitor notices within 5 s of its next look) and later ones within 5 s, rather
 * than hanging. Orders placed while it is paused either fail or are acknowledged; none hangs.
 * After each resumption, with nothing done by hand: every service is ready again, every order
 * acknowledged before, during and after reads back with its items, the customer has one
 * ORDER_PLACED notification per acknowledged order, and no process exited.
 */
import { expect } from "chai";
import { setTimeout as delay } from "node:timers/promises";
import { registeredUser } from "../acceptance/support/accounts.js";
import { api, type ApiResponse } from "../acceptance/support/api.js";
import { createdProduct } from "../acceptance/support/catalog.js";
import { myNotifications } from "../acceptance/support/notifications.js";
import { pollUntil } from "../acceptance/support/polling.js";
import { expectUnavailable, timed } from "./support/fast-failure.js";
import { startOutageRig, type OutageRig } from "./support/outage-rig.js";

/** How long the store is paused. */
const wedgedMs = 30_000;
/** How long a service may take to be seen not ready once its store stops answering. */
const unreadyWithinMs = 10_000;
/** The services whose store the paused server is (Analytics and Recommendation keep theirs in ClickHouse). */
const storeServices = ["auth", "user", "product", "order", "payment", "notification"] as const;

async function readiness(url: string): Promise<number> {
  try {
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 0;
  }
}

/** Each store-backed service's readiness, by service. */
async function readinessOfAll(rig: OutageRig): Promise<Record<string, number[]>> {
  const entries = await Promise.all(
    storeServices.map(
      async (service) =>
        [service, await Promise.all(rig.cluster.urlsOf(service).map((url) => readiness(url)))] as const,
    ),
  );
  return Object.fromEntries(entries);
}

const allAre = (states: Record<string, number[]>, status: number): boolean =>
  Object.values(states).every((statuses) => statuses.length > 0 && statuses.every((s) => s === status));

describe("a wedged store: the shared FerretDB paused for 30 s, then restarted (multi-process topology)", function () {
  this.timeout(15 * 60_000);
  let rig: OutageRig | undefined;

  before(async function () {
    this.timeout(6 * 60_000);
    rig = await startOutageRig({ ownStore: true });
  });

  after(async () => {
    if (rig?.store !== undefined) process.kill(rig.store.pid, "SIGCONT");
    await rig?.stop();
  });

  it("turns every service not ready, answers fast 503s, and recovers by itself with every acknowledged order", async () => {
    const running = rig ?? expect.fail("the rig did not start");
    const store = running.store ?? expect.fail("the rig has no store of its own");
    const customer = await registeredUser("wedged-store");
    const productId = await createdProduct({ price: 10, stock: 1_000 });
    const acknowledged: string[] = [];
    const order = async (): Promise<ApiResponse> => {
      const answer = await api("POST", "/api/orders", {
        token: customer.token,
        body: { items: [{ productId, quantity: 1 }] },
      });
      if (answer.status === 201) acknowledged.push((answer.body as { orderId: string }).orderId);
      return answer;
    };
    expect((await order()).status).to.equal(201);
    expect(
      allAre(await readinessOfAll(running), 200),
      JSON.stringify(await readinessOfAll(running)),
    ).to.equal(true);

    const everythingRecovers = async (when: string): Promise<void> => {
      await pollUntil(
        `every service to be ready ${when}`,
        async () => (allAre(await readinessOfAll(running), 200) ? true : undefined),
        60_000,
      );
      const after = await pollUntil(
        `an order to be acknowledged ${when}`,
        async () => ((await order()).status === 201 ? true : undefined),
        30_000,
      );
      expect(after).to.equal(true);
    };

    // Paused: sockets open, nothing answered.
    process.kill(store.pid, "SIGSTOP");
    const pausedAt = performance.now();
    // Orders in flight as the store stops: each either fails or is acknowledged, none hangs.
    const inFlight = Promise.all([order(), order(), order()]);
    const unready = await pollUntil(
      "every store-backed service to turn not ready",
      async () => (allAre(await readinessOfAll(running), 503) ? performance.now() - pausedAt : undefined),
      unreadyWithinMs + 5_000,
    );
    expect(unready, "ms until every service is not ready").to.be.below(unreadyWithinMs);
    expectUnavailable(
      await timed(() => api("GET", "/api/orders/my", { token: customer.token })),
      15_000,
      "the first read while paused",
    );
    expectUnavailable(
      await timed(() => api("GET", "/api/users/me", { token: customer.token })),
      5_000,
      "a later read while paused",
    );
    expectUnavailable(await timed(order), 5_000, "an order while paused");
    await delay(Math.max(0, wedgedMs - (performance.now() - pausedAt)));
    process.kill(store.pid, "SIGCONT");
    for (const answer of await inFlight) {
      expect([201, 503], answer.text).to.include(answer.status);
    }
    await everythingRecovers("after the pause");

    // Restarted in place: every connection the services held is gone.
    await store.restart();
    await everythingRecovers("after the restart");

    // Nothing acknowledged is lost: every order reads back with its item, and every order the
    // store holds (an order that answered 503 may have been stored) was announced once.
    const mine = await api("GET", "/api/orders/my", { token: customer.token });
    expect(mine.status, mine.text).to.equal(200);
    const listed = (mine.body as { orderId: string }[]).map((o) => o.orderId);
    expect(listed).to.include.members(acknowledged);
    for (const orderId of acknowledged) {
      const read = await api("GET", `/api/orders/${orderId}`, { token: customer.token });
      expect(read.status, read.text).to.equal(200);
      const items = (read.body as { items: { productId: string; quantity: number }[] }).items;
      expect(items.map((item) => [item.productId, item.quantity])).to.deep.equal([[productId, 1]]);
    }
    const placed = await pollUntil(
      "one ORDER_PLACED notification per stored order",
      async () => {
        const seen = (await myNotifications(customer.token)).filter((n) => n.eventType === "ORDER_PLACED");
        return seen.length >= listed.length ? seen : undefined;
      },
      120_000,
    );
    expect(placed).to.have.length(listed.length);
    expect(running.cluster.problems()).to.deep.equal([]);
  });
});
