/**
 * A deleted account's data goes to nobody who registers its email later (ADR 0100): the journey
 * of issue 41, black box over HTTP. A customer orders, opens a payment and is notified; the
 * admin deletes the account; someone registers the same email and logs in. The new account sees
 * none of the first's orders, payments or notifications, and can neither read, pay nor mark
 * them; the admin still reads the old order, with the old email as its customer.
 */
import { expect } from "chai";
import { adminLogin, registeredAgain, registeredUser } from "./support/accounts.js";
import { api } from "./support/api.js";
import {
  allNotifications,
  awaitMyNotification,
  myNotifications,
  type OwnedNotificationView,
} from "./support/notifications.js";
import { myPayments, openPayment } from "./support/payments.js";
import { pollUntil } from "./support/polling.js";

const forbidden = (message: string) => ({ status: 403, code: "PERMISSION_DENIED", message });

/**
 * The admin's listing's notices about `orderId`, read page by page (newest first: other suites
 * add theirs meanwhile) until `count` are found or the listing ends.
 */
async function shopNoticesOf(
  admin: string,
  orderId: string,
  count: number,
): Promise<OwnedNotificationView[]> {
  const found = new Map<string, OwnedNotificationView>();
  for (let page = 0; page < 50 && found.size < count; page++) {
    const listed = await allNotifications(admin, `page=${page}&size=100`);
    for (const notice of listed) if (notice.message.includes(orderId)) found.set(notice.id, notice);
    if (listed.length < 100) break;
  }
  return [...found.values()];
}

describe("An email registered again after its account's deletion", () => {
  it("gives the new account none of the old one's orders, payments or notifications, and lets it act on none", async () => {
    const first = await registeredUser("reused-journey");
    const { orderId, providerOrderId, amount } = await openPayment(first.token, 123.45);
    const placedNotice = await awaitMyNotification(
      first.token,
      "ORDER_PLACED",
      (n) => n.eventType === "ORDER_PLACED" && n.message.includes(orderId),
    );
    const paymentNotice = await awaitMyNotification(
      first.token,
      "PAYMENT_CREATED",
      (n) => n.eventType === "PAYMENT_CREATED" && n.message.includes(orderId),
    );
    expect((await myPayments(first.token)).map((p) => [p.orderId, p.status])).to.deep.equal([
      [orderId, "CREATED"],
    ]);
    const me = await api("GET", "/api/users/me", { token: first.token });
    expect(me.status, me.text).to.equal(200);
    const admin = await adminLogin();
    const deleted = await api("DELETE", `/api/users/${(me.body as { id: number }).id}`, { token: admin });
    expect(deleted.status, deleted.text).to.equal(204);

    const token = await registeredAgain(first.email);

    // Its own notices arrive (welcome, sign-in); none of the first account's ever does.
    await pollUntil("the new account's own two notifications", async () =>
      (await myNotifications(token)).length >= 2 ? true : undefined,
    );
    const notices = await myNotifications(token);
    expect(notices.map((n) => n.eventType).sort()).to.deep.equal(["USER_LOGIN", "USER_REGISTERED"]);
    expect(notices.find((n) => n.eventType === "USER_REGISTERED")?.message).to.equal(
      "Welcome, Someone Else! Your account has been created.",
    );
    const unread = await api("GET", "/api/notifications?unread=true&size=100", { token });
    expect(unread.status, unread.text).to.equal(200);
    expect((unread.body as { id: string }[]).map((n) => n.id).sort()).to.deep.equal(
      notices.map((n) => n.id).sort(),
    );

    const orders = await api("GET", "/api/orders/my", { token });
    expect([orders.status, orders.body]).to.deep.equal([200, []]);
    const payments = await api("GET", "/api/payments/my", { token });
    expect([payments.status, payments.body]).to.deep.equal([200, []]);

    const read = await api("GET", `/api/orders/${orderId}`, { token });
    expect([read.status, read.body]).to.deep.equal([
      403,
      forbidden("this order belongs to another customer"),
    ]);
    const pay = await api("POST", "/api/payments/create", { token, body: { orderId, amount } });
    expect([pay.status, pay.body]).to.deep.equal([403, forbidden("this order belongs to another customer")]);
    const checkout = await api("POST", "/api/payments/sandbox/checkout", {
      token,
      body: { providerOrderId, outcome: "paid" },
    });
    if (checkout.status === 403) {
      expect(checkout.body).to.deep.equal(forbidden("this payment belongs to another customer"));
    } else {
      // A deployment without the sandbox: no checkout at all.
      expect([checkout.status, (checkout.body as { code: string }).code]).to.deep.equal([404, "NOT_FOUND"]);
    }
    for (const notice of [placedNotice, paymentNotice]) {
      const mark = await api("PUT", `/api/notifications/${notice.id}/read`, { token });
      expect([mark.status, mark.body]).to.deep.equal([
        403,
        forbidden("this notification belongs to another user"),
      ]);
    }

    // The shop's record is whole and unchanged: the order (by its old email), one payment
    // notice, both notices unread.
    const kept = await api("GET", `/api/orders/${orderId}`, { token: admin });
    expect(kept.status, kept.text).to.equal(200);
    expect(kept.body).to.deep.include({
      orderId,
      customerId: first.email,
      status: "CREATED",
      totalAmount: amount,
    });
    const listed = await api("GET", "/api/orders", { token: admin });
    expect(listed.status, listed.text).to.equal(200);
    expect(
      (listed.body as { orderId: string; customerId: string }[]).find((o) => o.orderId === orderId),
    ).to.deep.equal({
      orderId,
      customerId: first.email,
      status: "CREATED",
      totalAmount: amount,
    });
    const shop = await shopNoticesOf(admin, orderId, 2);
    expect(shop.map((n) => [n.id, n.userEmail, n.eventType, n.read]).sort()).to.deep.equal(
      [
        [placedNotice.id, first.email, "ORDER_PLACED", false],
        [paymentNotice.id, first.email, "PAYMENT_CREATED", false],
      ].sort(),
    );
    expect(await myPayments(token)).to.deep.equal([]);
  });
});
