import { expect } from "chai";
import { adminLogin, registeredUser } from "./support/accounts.js";
import { api } from "./support/api.js";
import { myNotifications, awaitMyNotification, type NotificationView } from "./support/notifications.js";
import {
  callbackBody,
  myPayments,
  openPayment,
  orderStatus,
  placedOrder,
  postCallback,
  providerPaymentId,
  webhookSignature,
} from "./support/payments.js";
import { pollUntil } from "./support/polling.js";

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const processed = { message: "callback processed" };
const repeated = { message: "callback already processed" };

/** The order reads `status` (it moves through the payment-events consumer: eventually). */
function awaitOrderStatus(token: string, orderId: string, status: string): Promise<string> {
  return pollUntil(`order ${orderId} to read ${status}`, async () =>
    (await orderStatus(token, orderId)) === status ? status : undefined,
  );
}

/** The user's notifications about `orderId` of this event type, oldest first. */
async function noticesOf(token: string, eventType: string, orderId: string): Promise<NotificationView[]> {
  return (await myNotifications(token))
    .filter((n) => n.eventType === eventType && n.message.includes(orderId))
    .reverse();
}

describe("Payment: POST /api/payments/create", () => {
  it("answers 200 {providerOrderId, amount, currency}, lists the payment CREATED and tells the customer", async () => {
    const user = await registeredUser("payer");
    const orderId = await placedOrder(user.token, 39.98, 2);
    const response = await api("POST", "/api/payments/create", {
      token: user.token,
      body: { orderId, amount: 79.96 },
    });
    expect(response.status, response.text).to.equal(200);
    const body = response.body as { providerOrderId: string; amount: number; currency: string };
    expect(Object.keys(body).sort()).to.deep.equal(["amount", "currency", "providerOrderId"]);
    expect(body).to.deep.include({ amount: 79.96, currency: "INR" });
    expect(body.providerOrderId).to.match(/^order_[0-9A-Za-z]{14}$/);

    const [payment, ...others] = await myPayments(user.token);
    expect(others).to.deep.equal([]);
    expect(Object.keys(payment ?? {}).sort()).to.deep.equal([
      "amount",
      "createdAt",
      "orderId",
      "paymentId",
      "status",
    ]);
    expect(payment).to.deep.include({ orderId, amount: 79.96, status: "CREATED" });
    expect(payment?.createdAt).to.match(timestamp);
    const notice = await awaitMyNotification(
      user.token,
      "PAYMENT_CREATED",
      (n) => n.eventType === "PAYMENT_CREATED",
    );
    expect(notice.message).to.equal(`Payment of ₹79.96 for order ${orderId} has been initiated.`);
  });

  it("reuses the open gateway order on a second create: the same answer, one payment, one PAYMENT_CREATED", async () => {
    const user = await registeredUser("payer");
    const first = await openPayment(user.token, 12.5);
    const again = await api("POST", "/api/payments/create", {
      token: user.token,
      body: { orderId: first.orderId, amount: 12.5 },
    });
    expect(again.status, again.text).to.equal(200);
    expect(again.body).to.deep.equal({
      providerOrderId: first.providerOrderId,
      amount: 12.5,
      currency: "INR",
    });
    expect((await myPayments(user.token)).map((p) => p.orderId)).to.deep.equal([first.orderId]);
    await awaitMyNotification(user.token, "PAYMENT_CREATED", (n) => n.eventType === "PAYMENT_CREATED");
    expect(await noticesOf(user.token, "PAYMENT_CREATED", first.orderId)).to.have.length(1);
  });

  it("refuses an unknown order (404), another's order (403), a wrong, missing, zero, negative or over-precise amount (400), no token (401), and writes nothing", async () => {
    const user = await registeredUser("payer");
    const stranger = await registeredUser("stranger");
    const orderId = await placedOrder(user.token, 20);
    const create = (token: string | undefined, body: unknown) =>
      api("POST", "/api/payments/create", { ...(token === undefined ? {} : { token }), body });

    const unknown = await create(user.token, { orderId: "ord_does_not_exist", amount: 20 });
    expect(unknown.status, unknown.text).to.equal(404);
    expect(unknown.body).to.deep.equal({ status: 404, code: "NOT_FOUND", message: "order not found" });
    const foreign = await create(stranger.token, { orderId, amount: 20 });
    expect(foreign.status, foreign.text).to.equal(403);
    expect(foreign.body).to.include({ status: 403, code: "PERMISSION_DENIED" });
    const wrong = await create(user.token, { orderId, amount: 19.99 });
    expect(wrong.status, wrong.text).to.equal(400);
    expect(wrong.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: "amount: must equal the order's total",
    });
    for (const body of [
      { orderId },
      { orderId, amount: 0 },
      { orderId, amount: -20 },
      { orderId, amount: 19.999 },
      { orderId, amount: "20" },
      { amount: 20 },
    ]) {
      const response = await create(user.token, body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.body, JSON.stringify(body)).to.include({ status: 400, code: "INVALID_ARGUMENT" });
    }
    const anonymous = await create(undefined, { orderId, amount: 20 });
    expect(anonymous.status).to.equal(401);
    expect(await myPayments(user.token)).to.deep.equal([]);
    expect(await myPayments(stranger.token)).to.deep.equal([]);
  });

  it("refuses an order that is not payable (409): confirmed then cancelled by the admin, or paid already", async () => {
    const user = await registeredUser("payer");
    const admin = await adminLogin();
    const cancelled = await placedOrder(user.token, 5);
    // The admin's moves are CREATED → CONFIRMED → CANCELLED.
    for (const status of ["CONFIRMED", "CANCELLED"]) {
      const move = await api("PUT", `/api/orders/${cancelled}/status`, { token: admin, body: { status } });
      expect(move.status, move.text).to.equal(200);
    }
    const refused = await api("POST", "/api/payments/create", {
      token: user.token,
      body: { orderId: cancelled, amount: 5 },
    });
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.body).to.include({ status: 409 });

    const paid = await openPayment(user.token, 7);
    const body = callbackBody(paid.providerOrderId, "paid");
    expect((await postCallback(body, webhookSignature(body))).status).to.equal(200);
    const again = await api("POST", "/api/payments/create", {
      token: user.token,
      body: { orderId: paid.orderId, amount: 7 },
    });
    expect(again.status, again.text).to.equal(409);
    expect(again.body).to.deep.equal({
      status: 409,
      code: "ALREADY_EXISTS",
      message: "this order is paid already",
    });
  });
});

describe("Payment: GET /api/payments/my", () => {
  it("lists the caller's payments only, newest first", async () => {
    const user = await registeredUser("payer");
    const other = await registeredUser("other");
    const older = await openPayment(user.token, 1);
    const newer = await openPayment(user.token, 2);
    await openPayment(other.token, 3);
    expect((await myPayments(user.token)).map((p) => [p.orderId, p.amount])).to.deep.equal([
      [newer.orderId, 2],
      [older.orderId, 1],
    ]);
    expect(await api("GET", "/api/payments/my").then((r) => r.status)).to.equal(401);
  });
});

describe("Payment: POST /api/payments/callback", () => {
  it("refuses a missing, forged or mismatched X-Payment-Signature with 401 and a JSON error, and changes nothing", async () => {
    const user = await registeredUser("payer");
    const open = await openPayment(user.token, 10);
    const body = callbackBody(open.providerOrderId, "paid");
    const attempts: [string, string | undefined, string][] = [
      ["missing", undefined, body],
      ["empty", "", body],
      ["signed with another secret", webhookSignature(body, "forged-webhook-secret-0123456789"), body],
      ["for other bytes", webhookSignature(body), `${body}\n`],
      ["not hex", "zz".repeat(32), body],
    ];
    for (const [what, signature, sent] of attempts) {
      const response = await postCallback(sent, signature);
      expect(response.status, what).to.equal(401);
      expect(response.headers.get("content-type"), what).to.match(/^application\/json/);
      expect(response.body, what).to.deep.equal({
        status: 401,
        code: "UNAUTHENTICATED",
        message: "invalid or missing payment signature",
      });
    }
    expect((await myPayments(user.token))[0]?.status).to.equal("CREATED");
    expect(await orderStatus(user.token, open.orderId)).to.equal("CREATED");
  });

  it("a valid callback makes the payment SUCCESS, confirms the order and tells the customer once; a replay changes nothing", async () => {
    const user = await registeredUser("payer");
    const open = await openPayment(user.token, 79.96);
    const body = callbackBody(open.providerOrderId, "paid");
    const first = await postCallback(body, webhookSignature(body));
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.deep.equal(processed);
    expect((await myPayments(user.token))[0]?.status).to.equal("SUCCESS");
    await awaitOrderStatus(user.token, open.orderId, "CONFIRMED");
    const notice = await awaitMyNotification(
      user.token,
      "PAYMENT_SUCCESS",
      (n) => n.eventType === "PAYMENT_SUCCESS",
    );
    expect(notice.message).to.equal(`Payment of ₹79.96 for order ${open.orderId} was successful.`);
    await awaitMyNotification(user.token, "order confirmed", (n) => n.eventType === "ORDER_STATUS_UPDATED");

    const replay = await postCallback(body, webhookSignature(body));
    expect(replay.status, replay.text).to.equal(200);
    expect(replay.body).to.deep.equal(repeated);
    expect((await myPayments(user.token)).map((p) => p.status)).to.deep.equal(["SUCCESS"]);
    expect(await noticesOf(user.token, "PAYMENT_SUCCESS", open.orderId)).to.have.length(1);
    expect(await noticesOf(user.token, "ORDER_STATUS_UPDATED", open.orderId)).to.have.length(1);
  });

  it("takes the raw bytes as signed: a pretty-printed body in another key order, with a charset", async () => {
    const user = await registeredUser("payer");
    const open = await openPayment(user.token, 3.3);
    const paymentId = providerPaymentId();
    const fields = JSON.parse(callbackBody(open.providerOrderId, "paid", paymentId)) as Record<
      string,
      string
    >;
    const body = `{\n  "provider_signature" : "${fields["provider_signature"]}",\n  "provider_order_id": "${open.providerOrderId}",\n\t"provider_payment_id":"${paymentId}"\n}\n`;
    const response = await api("POST", "/api/payments/callback", {
      rawBody: body,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "x-payment-signature": webhookSignature(body),
      },
    });
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.deep.equal(processed);
    expect((await myPayments(user.token))[0]?.status).to.equal("SUCCESS");
  });

  it("20 identical signed callbacks in parallel: one processed, one SUCCESS, the order confirmed once, one notification", async () => {
    const user = await registeredUser("payer");
    const open = await openPayment(user.token, 45);
    const body = callbackBody(open.providerOrderId, "paid");
    const signature = webhookSignature(body);
    const answers = await Promise.all(Array.from({ length: 20 }, () => postCallback(body, signature)));
    expect(answers.map((a) => a.status)).to.deep.equal(Array.from({ length: 20 }, () => 200));
    const messages = answers.map((a) => (a.body as { message: string }).message);
    expect(
      messages.filter((m) => m === processed.message),
      messages.join(", "),
    ).to.have.length(1);
    expect(messages.filter((m) => m === repeated.message)).to.have.length(19);
    expect((await myPayments(user.token)).map((p) => p.status)).to.deep.equal(["SUCCESS"]);
    await awaitOrderStatus(user.token, open.orderId, "CONFIRMED");
    await awaitMyNotification(user.token, "PAYMENT_SUCCESS", (n) => n.eventType === "PAYMENT_SUCCESS");
    await awaitMyNotification(user.token, "order confirmed", (n) => n.eventType === "ORDER_STATUS_UPDATED");
    // A later event of the same customer, so every earlier one has been handled by now.
    const later = await openPayment(user.token, 1);
    await pollUntil("the later PAYMENT_CREATED", async () =>
      (await noticesOf(user.token, "PAYMENT_CREATED", later.orderId)).length > 0 ? true : undefined,
    );
    expect(await noticesOf(user.token, "PAYMENT_SUCCESS", open.orderId)).to.have.length(1);
    expect(await noticesOf(user.token, "ORDER_STATUS_UPDATED", open.orderId)).to.have.length(1);
  });

  it("an invalid provider_signature makes the payment FAILED (order stays CREATED, one notice); paying again succeeds", async () => {
    const user = await registeredUser("payer");
    const open = await openPayment(user.token, 15.75);
    const failed = callbackBody(open.providerOrderId, "failed");
    const response = await postCallback(failed, webhookSignature(failed));
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.deep.equal(processed);
    expect((await myPayments(user.token))[0]?.status).to.equal("FAILED");
    const notice = await awaitMyNotification(
      user.token,
      "PAYMENT_FAILED",
      (n) => n.eventType === "PAYMENT_FAILED",
    );
    expect(notice.message).to.equal(`Payment of ₹15.75 for order ${open.orderId} failed.`);
    expect(await orderStatus(user.token, open.orderId)).to.equal("CREATED");

    const again = await api("POST", "/api/payments/create", {
      token: user.token,
      body: { orderId: open.orderId, amount: 15.75 },
    });
    expect(again.body).to.deep.include({ providerOrderId: open.providerOrderId });
    const paid = callbackBody(open.providerOrderId, "paid");
    expect((await postCallback(paid, webhookSignature(paid))).body).to.deep.equal(processed);
    expect((await myPayments(user.token)).map((p) => p.status)).to.deep.equal(["SUCCESS"]);
    await awaitOrderStatus(user.token, open.orderId, "CONFIRMED");
  });

  it("answers 200 and changes nothing for an unknown gateway order; 400 with a JSON error for a signed malformed body", async () => {
    const unknown = callbackBody("order_Unknown0000000", "paid");
    const response = await postCallback(unknown, webhookSignature(unknown));
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.deep.equal({ message: "callback ignored: unknown gateway order" });
    for (const body of ["not json", "[]", '{"provider_payment_id":"pay_A","provider_order_id":"order_B"}']) {
      const malformed = await postCallback(body, webhookSignature(body));
      expect(malformed.status, body).to.equal(400);
      expect(malformed.body, body).to.include({ status: 400, code: "INVALID_ARGUMENT" });
    }
  });
});

describe("Payment: POST /api/payments/sandbox/checkout (the embedded sandbox gateway)", () => {
  it("pays the caller's gateway order as a checkout would: SUCCESS, the order confirmed; the callback it sent replays as a repeat", async () => {
    const user = await registeredUser("payer");
    const open = await openPayment(user.token, 99);
    const response = await api("POST", "/api/payments/sandbox/checkout", {
      token: user.token,
      body: { providerOrderId: open.providerOrderId },
    });
    expect(response.status, response.text).to.equal(200);
    const body = response.body as Record<string, string>;
    expect(body).to.deep.include({ status: "SUCCESS", message: processed.message });
    expect(body["providerPaymentId"]).to.match(/^pay_[0-9A-Za-z]{14}$/);
    await awaitOrderStatus(user.token, open.orderId, "CONFIRMED");
    const replay = await postCallback(body["callbackBody"] ?? "", body["callbackSignature"]);
    expect(replay.body).to.deep.equal(repeated);
  });

  it("declines on request (FAILED); refuses another customer's order (403) and no token (401)", async () => {
    const user = await registeredUser("payer");
    const stranger = await registeredUser("stranger");
    const open = await openPayment(user.token, 8);
    const checkout = (token: string | undefined, outcome: string) =>
      api("POST", "/api/payments/sandbox/checkout", {
        ...(token === undefined ? {} : { token }),
        body: { providerOrderId: open.providerOrderId, outcome },
      });
    expect((await checkout(stranger.token, "paid")).status).to.equal(403);
    expect((await checkout(undefined, "paid")).status).to.equal(401);
    const declined = await checkout(user.token, "declined");
    expect(declined.status, declined.text).to.equal(200);
    expect(declined.body).to.deep.include({ status: "FAILED" });
    expect(await orderStatus(user.token, open.orderId)).to.equal("CREATED");
  });
});
