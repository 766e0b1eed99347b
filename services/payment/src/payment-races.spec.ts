/**
 * The Payment service's races, with its store on each backend: the embedded store, and the
 * server in MONGODB_URL (FerretDB in `npm test`, whose conditional updates are not atomic; the
 * suite fails without it rather than skip). Concurrent creates for one order make one payment
 * and one gateway order; 20 identical signed callbacks in parallel make one SUCCESS and one
 * PAYMENT_SUCCESS.
 */
import { expect } from "chai";
import type { EventRecord } from "@commerce/runtime/events";
import type { DocumentStore } from "@commerce/runtime/store";
import {
  testStoreBackends,
  composeModules,
  startServiceHarness,
  type ServiceHarness,
} from "@commerce/runtime/testing";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { buildOrderService } from "@commerce/order";
import { buildProductService } from "@commerce/product";
import { createSandboxGateway } from "./gateway/sandbox-gateway.js";
import type { PaymentSettings } from "./payment-settings.js";
import { callbackMessages } from "./payments.js";
import { buildPaymentService } from "./payment-module.js";
import { publishedPaymentEvents } from "./testing/published-payment-events.js";

const alice = { userId: 11, email: "alice@x.test", role: "CUSTOMER" as const };
const admin = { userId: 13, email: "root@x.test", role: "ADMIN" as const };
const settings: PaymentSettings = {
  currency: "INR",
  keySecret: "key-secret-0123456789abcdef",
  webhookSecret: "webhook-secret-0123456789abcdef",
  gateway: { kind: "sandbox" },
};

for (const backend of testStoreBackends("services/payment/src/payment-races.spec.ts")) {
  describe(`Payment races (${backend.name})`, function () {
    this.timeout(30_000);
    const sandbox = createSandboxGateway(settings);
    let harness: ServiceHarness;
    let closeStore: () => Promise<void>;
    let paymentStore: DocumentStore;
    let events: EventRecord[];
    let pen: string;

    beforeEach(async () => {
      const opened = await backend.open();
      closeStore = () => opened.close();
      harness = await startServiceHarness(async (ctx) => {
        paymentStore = opened.store;
        return composeModules(
          await buildProductService(ctx),
          await buildOrderService(ctx),
          await buildPaymentService({ ...ctx, store: paymentStore }, settings, { gateway: sandbox }),
        );
      });
      const { ids } = await harness.client(ProductService, admin).bulkCreateProducts({
        products: [
          { name: "Pen", description: "", price: 19.99, stock: 100, brand: "Acme", categoryId: "books" },
        ],
      });
      pen = ids[0] ?? "";
      events = await harness.recordEvents("payment-events");
    });
    afterEach(async () => {
      await harness.close();
      await closeStore();
    });

    const payments = () => harness.client(PaymentService, alice);

    async function openPayment(): Promise<{ orderId: string; providerOrderId: string }> {
      const { orderId } = await harness
        .client(OrderService, alice)
        .placeOrder({ items: [{ productId: pen, quantity: 4 }] });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => payments().createPayment({ orderId, amount: 79.96 })),
      );
      const providerOrderIds = new Set(answers.map((a) => a.providerOrderId));
      expect(providerOrderIds.size).to.equal(1);
      return { orderId, providerOrderId: answers[0]?.providerOrderId ?? "" };
    }

    /** Payment events written so far, once all have reached the spy. */
    async function publishedTypes(): Promise<string[]> {
      return (await publishedPaymentEvents(paymentStore, harness.bus, events, 10_000)).map((e) => e.type);
    }

    it("10 concurrent creates for one order: one payment, one gateway order, one PAYMENT_CREATED", async () => {
      await openPayment();
      expect((await payments().listMyPayments({})).payments).to.have.length(1);
      expect(await publishedTypes()).to.deep.equal(["PAYMENT_CREATED"]);
    });

    it("20 identical signed callbacks in parallel: one SUCCESS, one PAYMENT_SUCCESS", async () => {
      const { orderId, providerOrderId } = await openPayment();
      const paid = sandbox.checkout(providerOrderId, "paid");
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          payments().handleCallback(
            { body: { contentType: "application/json", data: new TextEncoder().encode(paid.body) } },
            { headers: { "x-payment-signature": paid.signature } },
          ),
        ),
      );
      expect(answers.filter((a) => a.message === callbackMessages.processed)).to.have.length(1);
      expect(answers.filter((a) => a.message === callbackMessages.repeated)).to.have.length(19);
      const [mine] = (await payments().listMyPayments({})).payments;
      expect(mine).to.deep.include({ orderId, status: "SUCCESS" });
      expect(await publishedTypes()).to.deep.equal(["PAYMENT_CREATED", "PAYMENT_SUCCESS"]);
    });
  });
}
