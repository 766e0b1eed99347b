import { Code } from "@connectrpc/connect";
import { expect } from "chai";
import { setTimeout as delay } from "node:timers/promises";
import { buildOrderService, openOrderCollections, type OrderDocument } from "@commerce/order";
import { storedOrder } from "@commerce/order/testing";
import { migrationRecordsSpec, type Collection } from "@commerce/runtime/store";
import {
  codeOf,
  composeModules,
  eventually,
  startServiceHarness,
  testStoreBackends,
  type ServiceHarness,
  type TestStore,
} from "@commerce/runtime/testing";
import { PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import { SandboxCheckoutService } from "@commerce/runtime/gen/commerce/payment/v1/sandbox_checkout_pb.js";
import { createSandboxGateway } from "./gateway/sandbox-gateway.js";
import type { PaymentSettings } from "./payment-settings.js";
import { buildPaymentService } from "./payment-module.js";
import { openPaymentCollections, paymentIdOf, type PaymentDocument } from "./payment-store.js";

const settings: PaymentSettings = {
  currency: "INR",
  keySecret: "key-secret-0123456789abcdef",
  webhookSecret: "webhook-secret-0123456789abcdef",
  gateway: { kind: "sandbox" },
};
const email = "asha@x.test";
/** The account that registered the email after the first one (user id 11) was deleted. */
const later = { userId: 21, email, role: "CUSTOMER" as const };

/** A payment as the release before owners by id wrote it: its owner named by email only. */
function legacyPayment(orderId: string): PaymentDocument {
  return {
    _id: paymentIdOf(orderId),
    _v: 1,
    orderId,
    customerId: email,
    amountMinor: 1999,
    currency: "INR",
    providerOrderId: `order_${orderId.slice(4, 18).padEnd(14, "0")}`,
    status: "CREATED",
    createdAt: "2026-01-02T03:04:06",
    createdAtMs: Date.parse("2026-01-02T03:04:06Z"),
    providerPaymentIds: [],
    paidBy: "",
    outbox: [],
    outboxPending: false,
  };
}

for (const backend of testStoreBackends("services/payment/src/payment-owners.spec.ts")) {
  describe(`Payment service: owners of the payments created before owners by id (${backend.name})`, function () {
    this.timeout(30_000);
    let orderStore: TestStore;
    let paymentStore: TestStore;
    let harness: ServiceHarness;
    let orders: Collection<OrderDocument>;
    let payments: Collection<PaymentDocument>;

    /** Writes the payment of `orderId` with its gateway order's link, as the release before did. */
    async function writeLegacyPayment(orderId: string): Promise<void> {
      const payment = legacyPayment(orderId);
      const { gatewayOrders } = await openPaymentCollections(paymentStore.store);
      await gatewayOrders.insert({ _id: payment.providerOrderId, paymentId: payment._id });
      await payments.insert(payment);
    }

    beforeEach(async () => {
      orderStore = await backend.open();
      paymentStore = await backend.open();
      orders = (await openOrderCollections(orderStore.store)).orders;
      payments = (await openPaymentCollections(paymentStore.store)).payments;
      // The first account's order is nobody's now (the Order service's own migration); the later one's is its.
      await orders.insert(storedOrder("ord_first00000000000000", email, { customerUserId: 0 }));
      await orders.insert(storedOrder("ord_second0000000000000", email, { customerUserId: later.userId }));
      for (const orderId of [
        "ord_first00000000000000",
        "ord_second0000000000000",
        "ord_missing000000000000",
      ]) {
        await writeLegacyPayment(orderId);
      }
      harness = await startServiceHarness(async (ctx) =>
        composeModules(
          await buildOrderService({ ...ctx, store: orderStore.store }),
          await buildPaymentService({ ...ctx, store: paymentStore.store }, settings, {
            gateway: createSandboxGateway(settings),
            ownerBackfillIntervalMs: 100,
          }),
        ),
      );
    });
    afterEach(async () => {
      await harness.close();
      await orderStore.close();
      await paymentStore.close();
    });

    const ownerOf = async (orderId: string): Promise<number | undefined> =>
      (await payments.get(paymentIdOf(orderId)))?.customerUserId;

    it("gives each payment its order's owner, and the email's later account none of the first's", async () => {
      expect((await (await paymentStore.store.collection(migrationRecordsSpec)).get(1))?.state).to.equal(
        "done",
      );
      expect([
        await ownerOf("ord_first00000000000000"),
        await ownerOf("ord_second0000000000000"),
        await ownerOf("ord_missing000000000000"),
      ]).to.deep.equal([0, later.userId, 0]);
      const mine = await harness.client(PaymentService, later).listMyPayments({});
      expect(mine.payments.map((p) => p.orderId)).to.deep.equal(["ord_second0000000000000"]);
      expect(
        await codeOf(
          harness
            .client(PaymentService, later)
            .createPayment({ orderId: "ord_first00000000000000", amount: 19.99 }),
        ),
      ).to.equal(Code.PermissionDenied);
      const first = await payments.get(paymentIdOf("ord_first00000000000000"));
      expect(
        await codeOf(
          harness
            .client(SandboxCheckoutService, later)
            .checkout({ providerOrderId: first?.providerOrderId ?? "", outcome: "paid" }),
        ),
      ).to.equal(Code.PermissionDenied);
      expect((await payments.get(paymentIdOf("ord_first00000000000000")))?.status).to.equal("CREATED");
    });

    it("waits while the Order service does not know an order's owner: no payment is opened for it, and its payment is given the owner once known", async () => {
      await orders.insert(storedOrder("ord_pending000000000000", email));
      await writeLegacyPayment("ord_pending000000000000");
      expect(
        await codeOf(
          harness
            .client(PaymentService, later)
            .createPayment({ orderId: "ord_pending000000000000", amount: 19.99 }),
        ),
      ).to.equal(Code.Unavailable);
      await delay(500); // several backfill passes
      expect(await ownerOf("ord_pending000000000000")).to.equal(undefined);
      const pending = await orders.get("ord_pending000000000000");
      if (pending === undefined) throw new Error("no order");
      await orders.swap({ ...pending, _v: pending._v + 1, customerUserId: later.userId }, pending._v);
      await eventually(
        async () => ((await ownerOf("ord_pending000000000000")) === later.userId ? true : undefined),
        10_000,
      );
    });
  });
}
