/**
 * The Analytics API against the truth the other endpoints show. The deployment is shared with
 * the other suites, so the figures are compared with what GET /api/orders and GET /api/users
 * list at that moment, never with constants; revenue, which no endpoint lists platform-wide, is
 * compared as what this suite's own payments add. Mocha runs the files one after another, so
 * while this suite runs nobody else writes; what earlier suites left in flight settles first.
 */
import { expect } from "chai";
import { adminLogin, registeredUser } from "./support/accounts.js";
import { dailyRevenue, paise, settled, utcToday } from "./support/analytics-figures.js";
import { api } from "./support/api.js";
import {
  awaitOrderStatus,
  openPayment,
  orderStatus,
  placedOrder,
  sandboxCheckout as checkout,
} from "./support/payments.js";

async function moveOrder(orderId: string, status: string): Promise<void> {
  const response = await api("PUT", `/api/orders/${encodeURIComponent(orderId)}/status`, {
    token: await adminLogin(),
    body: { status },
  });
  expect(response.status, response.text).to.equal(200);
}

describe("Analytics: the figures equal what the other endpoints show", function () {
  this.timeout(180_000);

  it("counts users, orders by latest status, today's orders and successful payments, once the pipeline settles", async () => {
    const admin = await adminLogin();
    const day = utcToday();
    const before = await settled(
      admin,
      "the figures to agree with the other endpoints before the suite writes",
    );

    const customer = await registeredUser("analytics");
    // Paid: 19.99, 0.10 and 0.20 (summed exactly: 20.29, not 20.290000000000003).
    const paidOnce = await openPayment(customer.token, 19.99);
    const paidSmall = await openPayment(customer.token, 0.1);
    const paidThenCancelled = await openPayment(customer.token, 0.2);
    // A declined payment takes no money; an order confirmed by hand took none either.
    const declined = await openPayment(customer.token, 5);
    const confirmedUnpaid = await placedOrder(customer.token, 7.5);
    const created = await placedOrder(customer.token, 1.25);
    for (const open of [paidOnce, paidSmall, paidThenCancelled]) {
      await checkout(customer.token, open.providerOrderId, "paid");
    }
    await checkout(customer.token, declined.providerOrderId, "declined");
    await awaitOrderStatus(customer.token, paidThenCancelled.orderId, "CONFIRMED");
    // Cancelled after it was paid: the money was taken, so it stays in the revenue.
    await moveOrder(paidThenCancelled.orderId, "CANCELLED");
    await moveOrder(confirmedUnpaid, "CONFIRMED");
    await awaitOrderStatus(customer.token, paidOnce.orderId, "CONFIRMED");
    await awaitOrderStatus(customer.token, paidSmall.orderId, "CONFIRMED");
    expect(await orderStatus(customer.token, declined.orderId)).to.equal("CREATED");
    expect(await orderStatus(customer.token, created)).to.equal("CREATED");

    const added = paise(19.99) + paise(0.1) + paise(0.2);
    const sameDay = (): boolean => utcToday() === day;
    const after = await settled(
      admin,
      "the figures to agree with the other endpoints and show the suite's payments",
      (figures) =>
        paise(figures.dashboard.totalRevenue) === paise(before.dashboard.totalRevenue) + added &&
        (!sameDay() || paise(figures.today) === paise(before.today) + added),
    );

    expect(after.dashboard.totalUsers).to.equal(before.dashboard.totalUsers + 1);
    expect(after.orders.totalOrders).to.equal(before.orders.totalOrders + 6);
    expect(Object.keys(after.orders.ordersByStatus).sort()).to.deep.equal([
      "CANCELLED",
      "CONFIRMED",
      "CREATED",
    ]);
    expect(after.orders.ordersByStatus).to.deep.equal({
      CREATED: (before.orders.ordersByStatus["CREATED"] ?? 0) + 2,
      CONFIRMED: (before.orders.ordersByStatus["CONFIRMED"] ?? 0) + 3,
      CANCELLED: (before.orders.ordersByStatus["CANCELLED"] ?? 0) + 1,
    });
    expect(
      Object.values(after.orders.ordersByStatus).reduce((sum, n) => sum + n, 0),
      "ordersByStatus sums to totalOrders",
    ).to.equal(after.orders.totalOrders);
    expect(after.dashboard.totalRevenue).to.equal((paise(before.dashboard.totalRevenue) + added) / 100);
    if (sameDay()) expect(after.dashboard.ordersToday).to.equal(before.dashboard.ordersToday + 6);
  });
});

describe("Analytics: access", () => {
  const paths = ["/api/analytics/dashboard", "/api/analytics/revenue", "/api/analytics/orders"];

  it("answers customers 403 and callers without a token 401, with the error body", async () => {
    const customer = await registeredUser("analytics");
    for (const path of paths) {
      const forbidden = await api("GET", path, { token: customer.token });
      expect(forbidden.status, path).to.equal(403);
      expect(forbidden.body, path).to.include({ status: 403, code: "PERMISSION_DENIED" });
      const anonymous = await api("GET", path);
      expect(anonymous.status, path).to.equal(401);
      expect(anonymous.body, path).to.include({ status: 401, code: "UNAUTHENTICATED" });
    }
  });
});

describe("Analytics: GET /api/analytics/revenue", () => {
  it("covers the 30 days ending today by default, every day once, ascending, amounts with at most two decimals", async () => {
    const days = await dailyRevenue(await adminLogin());
    expect(days).to.have.length(30);
    const today = utcToday();
    const last = days.at(-1)?.date;
    // Unless the day turned between the request and now.
    if (last !== today)
      expect(new Date(`${today}T00:00:00Z`).getTime() - Date.parse(`${last ?? ""}T00:00:00Z`)).to.equal(
        86_400_000,
      );
    days.forEach((day, i) => {
      expect(Object.keys(day).sort()).to.deep.equal(["amount", "date"]);
      expect(day.date).to.match(/^\d{4}-\d{2}-\d{2}$/);
      if (i > 0) expect(Date.parse(day.date) - Date.parse(days[i - 1]?.date ?? "")).to.equal(86_400_000);
      expect(String(day.amount)).to.match(/^\d+(\.\d{1,2})?$/);
    });
  });

  it("takes from and to as inclusive UTC days, and to alone ends a 30-day range", async () => {
    const admin = await adminLogin();
    const range = await dailyRevenue(admin, "?from=2024-02-27&to=2024-03-02");
    expect(range.map((day) => day.date)).to.deep.equal([
      "2024-02-27",
      "2024-02-28",
      "2024-02-29",
      "2024-03-01",
      "2024-03-02",
    ]);
    const onlyTo = await dailyRevenue(admin, "?to=2024-03-01");
    expect([onlyTo.length, onlyTo[0]?.date, onlyTo.at(-1)?.date]).to.deep.equal([
      30,
      "2024-02-01",
      "2024-03-01",
    ]);
  });

  it("answers 400 with the error body for malformed or impossible dates, from after to, and more than 366 days", async () => {
    const admin = await adminLogin();
    for (const query of [
      "?from=2024-13-01",
      "?from=2026-02-30",
      "?to=01-02-2024",
      "?from=yesterday",
      "?from=2024-03-02&to=2024-03-01",
      "?from=2099-01-01",
      "?from=2023-01-01&to=2024-01-02",
      "?since=2024-01-01",
    ]) {
      const response = await api("GET", `/api/analytics/revenue${query}`, { token: admin });
      expect(response.status, query).to.equal(400);
      expect(response.body, query).to.include({ status: 400, code: "INVALID_ARGUMENT" });
    }
    expect(await dailyRevenue(admin, "?from=2024-01-01&to=2024-12-31")).to.have.length(366);
  });
});
