import { expect } from "chai";
import { Code, ConnectError } from "@connectrpc/connect";
import type { EventRecord } from "@commerce/runtime/events";
import type { Caller } from "@commerce/runtime/identity";
import {
  composeModules,
  eventually,
  codeOf,
  startServiceHarness,
  type ServiceHarness,
} from "@commerce/runtime/testing";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import { SandboxCheckoutService } from "@commerce/runtime/gen/commerce/payment/v1/sandbox_checkout_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { buildOrderService } from "@commerce/order";
import { buildProductService } from "@commerce/product";
import { startFakeGateway, type FakeGateway } from "./testing/fake-gateway-server.js";
import { createSandboxGateway, type SandboxCallback } from "./gateway/sandbox-gateway.js";
import { webhookSignature } from "./gateway/signatures.js";
import type { PaymentSettings } from "./payment-settings.js";
import { openPaymentCollections } from "./payment-store.js";
import { callbackMessages } from "./payments.js";
import { buildPaymentService } from "./payment-module.js";
import { publishedPaymentEvents } from "./testing/published-payment-events.js";

const alice = { userId: 11, email: "alice@x.test", role: "CUSTOMER" as const };
const bob = { userId: 12, email: "bob@x.test", role: "CUSTOMER" as const };
const admin = { userId: 13, email: "root@x.test", role: "ADMIN" as const };
/** A later account that registered alice's email after hers was deleted. */
const aliceAgain = { userId: 21, email: alice.email, role: "CUSTOMER" as const };
const settings: PaymentSettings = {
  currency: "INR",
  keySecret: "key-secret-0123456789abcdef",
  webhookSecret: "webhook-secret-0123456789abcdef",
  gateway: { kind: "sandbox" },
};
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("Payment service", () => {
  const sandbox = createSandboxGateway(settings);
  let harness: ServiceHarness;
  let events: EventRecord[];
  let pen: string;

  beforeEach(async () => {
    harness = await startServiceHarness(async (ctx) =>
      composeModules(
        await buildProductService(ctx),
        await buildOrderService(ctx),
        await buildPaymentService(ctx, settings, { gateway: sandbox }),
      ),
    );
    const { ids } = await harness.client(ProductService, admin).bulkCreateProducts({
      products: [
        { name: "Pen", description: "", price: 19.99, stock: 1000, brand: "Acme", categoryId: "books" },
      ],
    });
    pen = ids[0] ?? "";
    events = await harness.recordEvents("payment-events");
  });
  afterEach(() => harness.close());

  const payments = (caller: Caller = alice) => harness.client(PaymentService, caller);

  /** An order of 4 pens at 19.99: 79.96. */
  async function placed(caller: Caller = alice): Promise<string> {
    const { orderId } = await harness
      .client(OrderService, caller)
      .placeOrder({ items: [{ productId: pen, quantity: 4 }] });
    return orderId;
  }

  function callback(body: string, signature?: string) {
    return payments().handleCallback(
      { body: { contentType: "application/json", data: bytes(body) } },
      signature === undefined ? {} : { headers: { "x-payment-signature": signature } },
    );
  }
  const deliver = (sent: SandboxCallback) => callback(sent.body, sent.signature);

  const statusOf = async (orderId: string, caller: Caller = alice): Promise<string | undefined> =>
    (await payments(caller).listMyPayments({})).payments.find((p) => p.orderId === orderId)?.status;

  /** Payment events written so far, once all have reached the spy. */
  const publishedEvents = (): Promise<EventRecord[]> =>
    publishedPaymentEvents(harness.context.store, harness.bus, events, 5_000);
  const data = (record: EventRecord | undefined) =>
    JSON.parse(record?.data ?? "{}") as Record<string, unknown>;

  describe("create", () => {
    it("opens a gateway order and writes the payment with PAYMENT_CREATED", async () => {
      const orderId = await placed();
      const created = await payments().createPayment({ orderId, amount: 79.96 });
      expect(created.providerOrderId).to.match(/^order_[0-9A-Za-z]{14}$/);
      expect(created).to.deep.include({ amount: 79.96, currency: "INR" });
      // The sandbox is paid through its own checkout: no hosted one to go to.
      expect(created.checkout).to.equal(undefined);
      const [mine] = (await payments().listMyPayments({})).payments;
      expect(mine).to.deep.include({ orderId, amount: 79.96, status: "CREATED" });
      expect(mine?.paymentId).to.match(/^pay_[A-Za-z0-9_-]{22}$/);
      expect(mine?.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      const published = await publishedEvents();
      expect(published.map((e) => e.type)).to.deep.equal(["PAYMENT_CREATED"]);
      expect(published[0]?.subject).to.equal(mine?.paymentId);
      expect(data(published[0])).to.deep.equal({
        paymentId: mine?.paymentId,
        orderId,
        customerId: alice.email,
        customerUserId: alice.userId,
        currency: "INR",
        providerOrderId: created.providerOrderId,
        amountMinor: "7996",
      });
    });

    it("reuses the open gateway order on a second create, also when both race: one record, one event", async () => {
      const orderId = await placed();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => payments().createPayment({ orderId, amount: 79.96 })),
      );
      const again = await payments().createPayment({ orderId, amount: 79.96 });
      expect(new Set([...answers, again].map((a) => a.providerOrderId)).size).to.equal(1);
      expect((await payments().listMyPayments({})).payments).to.have.length(1);
      expect((await publishedEvents()).map((e) => e.type)).to.deep.equal(["PAYMENT_CREATED"]);
    });

    it("refuses an unknown order (404), another account's order, the same email's later one too (403), a wrong or over-precise amount (400)", async () => {
      const orderId = await placed();
      expect(await codeOf(payments().createPayment({ orderId: "ord_nope", amount: 79.96 }))).to.equal(
        Code.NotFound,
      );
      for (const other of [bob, aliceAgain]) {
        expect(await codeOf(payments(other).createPayment({ orderId, amount: 79.96 })), other.email).to.equal(
          Code.PermissionDenied,
        );
      }
      expect(await codeOf(payments(admin).createPayment({ orderId, amount: 79.96 }))).to.equal(
        Code.PermissionDenied,
      );
      for (const amount of [79.95, 79.97, 7996, 79.961, 0, -79.96]) {
        expect(await codeOf(payments().createPayment({ orderId, amount })), String(amount)).to.equal(
          Code.InvalidArgument,
        );
      }
      expect(await codeOf(payments().createPayment({ orderId }))).to.equal(Code.InvalidArgument);
      expect(await codeOf(payments().createPayment({ amount: 79.96 }))).to.equal(Code.InvalidArgument);
      expect(await publishedEvents()).to.deep.equal([]);
      expect((await payments().listMyPayments({})).payments).to.deep.equal([]);
    });

    it("refuses an order that is not payable (409): cancelled, or paid already", async () => {
      const cancelled = await placed();
      const orders = harness.client(OrderService, admin);
      await orders.updateOrderStatus({ orderId: cancelled, status: "CONFIRMED" });
      expect(await codeOf(payments().createPayment({ orderId: cancelled, amount: 79.96 }))).to.equal(
        Code.AlreadyExists,
      );
      await orders.updateOrderStatus({ orderId: cancelled, status: "CANCELLED" });
      expect(await codeOf(payments().createPayment({ orderId: cancelled, amount: 79.96 }))).to.equal(
        Code.AlreadyExists,
      );

      const paid = await placed();
      const { providerOrderId } = await payments().createPayment({ orderId: paid, amount: 79.96 });
      await deliver(sandbox.checkout(providerOrderId, "paid"));
      expect(await codeOf(payments().createPayment({ orderId: paid, amount: 79.96 }))).to.equal(
        Code.AlreadyExists,
      );
      expect((await payments().listMyPayments({})).payments).to.have.length(1);
    });

    it("lists the caller's account's payments only, newest first", async () => {
      const first = await placed();
      const second = await placed();
      const bobs = await placed(bob);
      for (const [orderId, caller] of [
        [first, alice],
        [second, alice],
        [bobs, bob],
      ] as const) {
        await payments(caller).createPayment({ orderId, amount: 79.96 });
      }
      expect((await payments().listMyPayments({})).payments.map((p) => p.orderId)).to.deep.equal([
        second,
        first,
      ]);
      expect((await payments(bob).listMyPayments({})).payments.map((p) => p.orderId)).to.deep.equal([bobs]);
      expect((await payments(aliceAgain).listMyPayments({})).payments).to.deep.equal([]);
    });
  });

  describe("callback", () => {
    async function openPayment(): Promise<{ orderId: string; providerOrderId: string }> {
      const orderId = await placed();
      const { providerOrderId } = await payments().createPayment({ orderId, amount: 79.96 });
      return { orderId, providerOrderId };
    }

    it("refuses a missing or wrong X-Payment-Signature with 401 and changes nothing", async () => {
      const { orderId, providerOrderId } = await openPayment();
      const paid = sandbox.checkout(providerOrderId, "paid");
      expect(await codeOf(callback(paid.body))).to.equal(Code.Unauthenticated);
      expect(await codeOf(callback(paid.body, ""))).to.equal(Code.Unauthenticated);
      expect(
        await codeOf(callback(paid.body, webhookSignature(paid.body, "forged-secret-0123456789"))),
      ).to.equal(Code.Unauthenticated);
      expect(await codeOf(callback(`${paid.body} `, paid.signature))).to.equal(Code.Unauthenticated);
      expect(await statusOf(orderId)).to.equal("CREATED");
      expect((await publishedEvents()).map((e) => e.type)).to.deep.equal(["PAYMENT_CREATED"]);
    });

    it("a valid payment signature makes the payment SUCCESS and publishes PAYMENT_SUCCESS, which confirms the order", async () => {
      const { orderId, providerOrderId } = await openPayment();
      const paid = sandbox.checkout(providerOrderId, "paid");
      expect(await deliver(paid)).to.deep.include({ message: callbackMessages.processed });
      expect(await statusOf(orderId)).to.equal("SUCCESS");
      const published = await publishedEvents();
      expect(published.map((e) => e.type)).to.deep.equal(["PAYMENT_CREATED", "PAYMENT_SUCCESS"]);
      expect(data(published[1])).to.deep.include({
        orderId,
        customerId: alice.email,
        customerUserId: alice.userId,
        providerPaymentId: paid.providerPaymentId,
        amountMinor: "7996",
      });
      await eventually(
        async () =>
          (await harness.client(OrderService, alice).getOrder({ orderId })).status === "CONFIRMED"
            ? true
            : undefined,
        5_000,
        "the order to be confirmed",
      );
    });

    it("is idempotent: a replay and 20 parallel duplicates give one SUCCESS and one PAYMENT_SUCCESS", async () => {
      const { orderId, providerOrderId } = await openPayment();
      const paid = sandbox.checkout(providerOrderId, "paid");
      const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(paid)));
      const messages = answers.map((a) => a.message).sort();
      expect(messages.filter((m) => m === callbackMessages.processed)).to.have.length(1);
      expect(messages.filter((m) => m === callbackMessages.repeated)).to.have.length(19);
      expect(await deliver(paid)).to.deep.include({ message: callbackMessages.repeated });
      expect(await statusOf(orderId)).to.equal("SUCCESS");
      expect((await publishedEvents()).map((e) => e.type)).to.deep.equal([
        "PAYMENT_CREATED",
        "PAYMENT_SUCCESS",
      ]);
    });

    it("an invalid payment signature makes it FAILED (PAYMENT_FAILED); the customer can pay it again", async () => {
      const { orderId, providerOrderId } = await openPayment();
      const declined = sandbox.checkout(providerOrderId, "declined");
      expect(await deliver(declined)).to.deep.include({ message: callbackMessages.processed });
      expect(await deliver(declined)).to.deep.include({ message: callbackMessages.repeated });
      expect(await statusOf(orderId)).to.equal("FAILED");
      // A new create answers the same gateway order; paying it succeeds.
      const again = await payments().createPayment({ orderId, amount: 79.96 });
      expect(again.providerOrderId).to.equal(providerOrderId);
      expect(await deliver(sandbox.checkout(providerOrderId, "paid"))).to.deep.include({
        message: callbackMessages.processed,
      });
      expect(await statusOf(orderId)).to.equal("SUCCESS");
      // A late failure after the payment changes nothing: paid is final.
      expect(await deliver(sandbox.checkout(providerOrderId, "declined"))).to.deep.include({
        message: callbackMessages.repeated,
      });
      expect(await statusOf(orderId)).to.equal("SUCCESS");
      const published = await publishedEvents();
      expect(published.map((e) => e.type)).to.deep.equal([
        "PAYMENT_CREATED",
        "PAYMENT_FAILED",
        "PAYMENT_SUCCESS",
      ]);
      expect(data(published[1])).to.deep.include({
        providerPaymentId: declined.providerPaymentId,
        amountMinor: "7996",
      });
    });

    it("checks the payment signature against the stored gateway order, not the one a body names", async () => {
      const { orderId, providerOrderId } = await openPayment();
      const other = await openPayment();
      // Signed for the other order, sent naming this one: the signature cannot verify here.
      const foreign = sandbox.checkout(other.providerOrderId, "paid");
      const fields = JSON.parse(foreign.body) as Record<string, string>;
      const body = JSON.stringify({ ...fields, provider_order_id: providerOrderId });
      await callback(body, webhookSignature(body, settings.webhookSecret));
      expect(await statusOf(orderId)).to.equal("FAILED");
    });

    it("answers 200 and changes nothing for an unknown gateway order; 400 for a malformed body", async () => {
      const unknown = sandbox.checkout("order_Unknown0000000", "paid");
      expect(await deliver(unknown)).to.deep.include({ message: callbackMessages.unknownOrder });
      for (const body of [
        "not json",
        "[]",
        '{"provider_payment_id":"pay_A","provider_order_id":"order_B"}',
      ]) {
        expect(await codeOf(callback(body, webhookSignature(body, settings.webhookSecret))), body).to.equal(
          Code.InvalidArgument,
        );
      }
      expect(await publishedEvents()).to.deep.equal([]);
    });
  });

  describe("sandbox checkout", () => {
    const checkout = (caller: Caller = alice) => harness.client(SandboxCheckoutService, caller);

    it("pays the caller's gateway order through the signed callback path: SUCCESS, PAYMENT_SUCCESS, a replayable callback", async () => {
      const orderId = await placed();
      const { providerOrderId } = await payments().createPayment({ orderId, amount: 79.96 });
      const paid = await checkout().checkout({ providerOrderId, outcome: "paid" });
      expect(paid).to.deep.include({ status: "SUCCESS", message: callbackMessages.processed });
      expect(paid.providerPaymentId).to.match(/^pay_[0-9A-Za-z]{14}$/);
      expect(JSON.parse(paid.callbackBody)).to.deep.include({
        provider_order_id: providerOrderId,
        provider_payment_id: paid.providerPaymentId,
      });
      expect(paid.callbackSignature).to.equal(webhookSignature(paid.callbackBody, settings.webhookSecret));
      // The callback it delivered, replayed: a repeat.
      expect(await callback(paid.callbackBody, paid.callbackSignature)).to.deep.include({
        message: callbackMessages.repeated,
      });
      expect(await statusOf(orderId)).to.equal("SUCCESS");
      expect((await publishedEvents()).map((e) => e.type)).to.deep.equal([
        "PAYMENT_CREATED",
        "PAYMENT_SUCCESS",
      ]);
      // Paid is final at the gateway too: no second payment of the same gateway order.
      expect(await codeOf(checkout().checkout({ providerOrderId, outcome: "paid" }))).to.equal(
        Code.AlreadyExists,
      );
    });

    it("declines (FAILED, PAYMENT_FAILED) when asked; an empty outcome pays", async () => {
      const orderId = await placed();
      const { providerOrderId } = await payments().createPayment({ orderId, amount: 79.96 });
      expect(await checkout().checkout({ providerOrderId, outcome: "declined" })).to.deep.include({
        status: "FAILED",
      });
      expect(await checkout().checkout({ providerOrderId, outcome: "" })).to.deep.include({
        status: "SUCCESS",
      });
      expect((await publishedEvents()).map((e) => e.type)).to.deep.equal([
        "PAYMENT_CREATED",
        "PAYMENT_FAILED",
        "PAYMENT_SUCCESS",
      ]);
    });

    it("refuses another account's gateway order, the same email's later one too (403), an unknown one (404), an unknown outcome (400)", async () => {
      const orderId = await placed();
      const { providerOrderId } = await payments().createPayment({ orderId, amount: 79.96 });
      for (const other of [bob, aliceAgain]) {
        expect(
          await codeOf(checkout(other).checkout({ providerOrderId, outcome: "paid" })),
          other.email,
        ).to.equal(Code.PermissionDenied);
      }
      expect(
        await codeOf(checkout().checkout({ providerOrderId: "order_Unknown0000000", outcome: "paid" })),
      ).to.equal(Code.NotFound);
      expect(await codeOf(checkout().checkout({ providerOrderId, outcome: "refunded" }))).to.equal(
        Code.InvalidArgument,
      );
      expect(await statusOf(orderId)).to.equal("CREATED");
      expect((await publishedEvents()).map((e) => e.type)).to.deep.equal(["PAYMENT_CREATED"]);
    });
  });
});

describe("Payment service with the HTTP gateway", () => {
  const credentials = { keyId: "rzp_test_key", keySecret: settings.keySecret };
  let fake: FakeGateway;
  let harness: ServiceHarness;

  beforeEach(async () => {
    fake = await startFakeGateway(credentials);
    const httpSettings: PaymentSettings = {
      ...settings,
      gateway: { kind: "http", baseUrl: fake.url, keyId: credentials.keyId },
    };
    harness = await startServiceHarness(async (ctx) =>
      composeModules(
        await buildProductService(ctx),
        await buildOrderService(ctx),
        await buildPaymentService(ctx, httpSettings),
      ),
    );
  });
  afterEach(async () => {
    await harness.close();
    await fake.close();
  });

  it("answers a gateway failure with 500 and writes nothing; a later retry makes one gateway order", async () => {
    const { ids } = await harness.client(ProductService, admin).bulkCreateProducts({
      products: [
        { name: "Pen", description: "", price: 19.99, stock: 10, brand: "Acme", categoryId: "books" },
      ],
    });
    const { orderId } = await harness
      .client(OrderService, alice)
      .placeOrder({ items: [{ productId: ids[0] ?? "", quantity: 1 }] });
    const payments = harness.client(PaymentService, alice);
    fake.script(...Array.from({ length: 3 }, () => ({ kind: "status" as const, status: 503 })));
    try {
      await payments.createPayment({ orderId, amount: 19.99 });
      expect.fail("expected the create to fail");
    } catch (error) {
      const failure = ConnectError.from(error);
      expect(failure.code).to.equal(Code.Internal);
      expect(failure.rawMessage).to.equal("internal error");
    }
    expect((await payments.listMyPayments({})).payments).to.deep.equal([]);
    const { payments: stored } = await openPaymentCollections(harness.context.store);
    expect(await stored.count({})).to.equal(0);

    const created = await payments.createPayment({ orderId, amount: 19.99 });
    expect(created.providerOrderId).to.equal([...fake.orders.values()][0]?.id);
    // Paid at the gateway's hosted checkout, under its base URL, with the merchant's key id.
    expect({ url: created.checkout?.url, keyId: created.checkout?.keyId }).to.deep.equal({
      url: `${fake.url}/v1/checkout/embedded`,
      keyId: credentials.keyId,
    });
    expect(fake.orders.size).to.equal(1);
    expect(new Set(fake.requests.map((r) => r.idempotencyKey)).size).to.equal(1);
    expect(JSON.parse(fake.requests[3]?.body ?? "")).to.deep.equal({
      amount: 1999,
      currency: "INR",
      receipt: fake.requests[3]?.idempotencyKey,
    });
    // No sandbox with a real gateway: its checkout is not there.
    expect(
      await codeOf(
        harness
          .client(SandboxCheckoutService, alice)
          .checkout({ providerOrderId: created.providerOrderId, outcome: "paid" }),
      ),
    ).to.equal(Code.NotFound);
  });
});
