/**
 * A crash while a payment is created leaves a consistent outcome. The platform (exactly what
 * `npm start` runs, embedded) pays through the HTTP gateway adapter, pointed at the fake gateway
 * on loopback, and is killed with SIGKILL at one of two places, each placed deterministically
 * (ADR 0084):
 *
 *   - between the gateway's answer and the payment's write: the fake gateway makes the order and
 *     holds its answer; the test stops the platform (SIGSTOP), lets the answer go into the
 *     stopped process's socket, and kills it. The gateway made an order; nothing was written.
 *   - after the write, before the answer reached the client: the client sends the create on a
 *     connection of its own; the edge answers only once the payment is written, so when the
 *     answer's first bytes arrive the test stops and kills the platform and drops the answer.
 *
 * After a restart on the same data, the retried create answers the gateway order made before
 * (one gateway order, one payment, one PAYMENT_CREATED), and a signed callback confirms the
 * order.
 */
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { paymentSignature, webhookSignature } from "@commerce/payment";
import { startFakeGateway, type FakeGateway } from "@commerce/payment/testing";
import { jsonOk, sendJson } from "#testing/loopback-json.js";
import { startPlatformProcess, type PlatformProcess } from "#testing/platform-process.js";
import { pollUntil } from "../acceptance/support/polling.js";

const admin = { email: "admin@payment-crash.test", password: "payment-crash-admin-password" };
const customer = {
  fullName: "Crash Payer",
  email: "payer@payment-crash.test",
  phoneNo: "+919876543210",
  password: "payer-password",
};
const credentials = { keyId: "rzp_test_crash", keySecret: randomBytes(24).toString("base64url") };
const webhookSecret = randomBytes(24).toString("base64url");
const price = 249.5;

interface PaymentView {
  readonly paymentId: string;
  readonly orderId: string;
  readonly amount: number;
  readonly status: string;
  readonly createdAt: string;
}

interface NotificationView {
  readonly eventType: string;
  readonly message: string;
}

async function login(baseUrl: string, email: string, password: string): Promise<string> {
  const body = await jsonOk(baseUrl, "POST", "/api/auth/login", undefined, { email, password });
  return (body as { token: string }).token;
}

/**
 * POSTs `body` on a connection of its own and resolves once the answer's first bytes arrive,
 * calling `onAnswer` at once: the answer is dropped unread, as if it never reached the client.
 */
function postUntilAnswered(
  baseUrl: string,
  path: string,
  token: string,
  body: unknown,
  onAnswer: () => void,
): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  const payload = JSON.stringify(body);
  const request = [
    `POST ${path} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    `authorization: Bearer ${token}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(payload)}`,
    "",
    payload,
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.once("data", () => {
      onAnswer();
      socket.destroy();
      resolve();
    });
    socket.once("error", reject);
  });
}

describe("payment created across a crash (embedded, HTTP gateway)", function () {
  this.timeout(3 * 60_000);
  let scratch: string;
  let fake: FakeGateway;
  let platform: PlatformProcess;
  let settings: NodeJS.ProcessEnv;
  let productId: string;

  const restart = async (): Promise<void> => {
    platform = await startPlatformProcess(settings);
  };
  const customerToken = (): Promise<string> => login(platform.baseUrl, customer.email, customer.password);
  const myPayments = async (token: string): Promise<PaymentView[]> =>
    (await jsonOk(platform.baseUrl, "GET", "/api/payments/my", token)) as PaymentView[];
  const myNotifications = async (token: string, orderId: string): Promise<NotificationView[]> =>
    (
      (await jsonOk(platform.baseUrl, "GET", "/api/notifications?size=100", token)) as NotificationView[]
    ).filter((notification) => notification.message.includes(orderId));

  async function placeOrder(token: string): Promise<string> {
    const placed = await sendJson(platform.baseUrl, "POST", "/api/orders", token, {
      items: [{ productId, quantity: 1 }],
    });
    expect(placed.status).to.equal(201);
    return (placed.body as { orderId: string }).orderId;
  }

  /** The gateway's signed callback for a captured payment of gateway order `providerOrderId`. */
  async function sendCallback(providerOrderId: string): Promise<{ status: number; body: unknown }> {
    const providerPaymentId = `pay_crash${randomBytes(6).toString("hex")}`;
    const body = JSON.stringify({
      provider_payment_id: providerPaymentId,
      provider_order_id: providerOrderId,
      provider_signature: paymentSignature(providerOrderId, providerPaymentId, credentials.keySecret),
    });
    const answer = await fetch(new URL("/api/payments/callback", platform.baseUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-payment-signature": webhookSignature(body, webhookSecret),
      },
      body,
    });
    return { status: answer.status, body: await answer.json() };
  }

  /**
   * After the crash and the retried create (which answered `providerOrderId`): one payment for
   * `orderId`, under the gateway order's idempotency key, and one PAYMENT_CREATED; a signed
   * callback then confirms the order.
   */
  async function expectPaidOnce(
    token: string,
    orderId: string,
    key: string,
    providerOrderId: string,
  ): Promise<void> {
    const paymentsOf = async (): Promise<PaymentView[]> =>
      (await myPayments(token)).filter((payment) => payment.orderId === orderId);
    const stored = await paymentsOf();
    expect(stored).to.deep.equal([
      { paymentId: key, orderId, amount: price, status: "CREATED", createdAt: stored[0]?.createdAt },
    ]);

    expect(await sendCallback(providerOrderId)).to.deep.equal({
      status: 200,
      body: { message: "callback processed" },
    });
    await pollUntil(`order ${orderId} CONFIRMED`, async () => {
      const order = (await jsonOk(platform.baseUrl, "GET", `/api/orders/${orderId}`, token)) as {
        status: string;
      };
      return order.status === "CONFIRMED" ? order : undefined;
    });
    expect((await paymentsOf()).map(({ status }) => status)).to.deep.equal(["SUCCESS"]);

    // PAYMENT_SUCCESS follows PAYMENT_CREATED on the payment's partition: once its notice is
    // there, every PAYMENT_CREATED of this payment has been seen.
    await pollUntil("the PAYMENT_SUCCESS notification", async () =>
      (await myNotifications(token, orderId)).find(({ eventType }) => eventType === "PAYMENT_SUCCESS"),
    );
    const created = (await myNotifications(token, orderId)).filter(
      ({ eventType }) => eventType === "PAYMENT_CREATED",
    );
    expect(created.map(({ message }) => message)).to.deep.equal([
      `Payment of ₹249.50 for order ${orderId} has been initiated.`,
    ]);
  }

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "payment-after-crash-"));
    fake = await startFakeGateway(credentials);
    settings = {
      DATA_DIR: join(scratch, "data"),
      JWT_SECRET: randomBytes(64).toString("base64url"),
      EDGE_SECRET: randomBytes(32).toString("base64url"),
      PEER_SECRET: randomBytes(32).toString("base64url"),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      PAYMENT_GATEWAY_URL: fake.url,
      PAYMENT_KEY_ID: credentials.keyId,
      PAYMENT_KEY_SECRET: credentials.keySecret,
      PAYMENT_WEBHOOK_SECRET: webhookSecret,
      PAYMENT_CURRENCY: "INR",
      // Embedded whatever the caller's environment says.
      MONGODB_URL: "",
      KAFKA_BROKERS: "",
      LOG_LEVEL: "error",
    };
    await restart();
    const adminToken = await login(platform.baseUrl, admin.email, admin.password);
    const brand = `PayCrash ${randomBytes(4).toString("hex")}`;
    await jsonOk(platform.baseUrl, "POST", "/api/products", adminToken, {
      name: "Crash-proof lamp",
      description: "survives a SIGKILL",
      price,
      stock: 100,
      brand,
      categoryId: "electronics",
    });
    const listed = (await jsonOk(
      platform.baseUrl,
      "GET",
      `/api/products?brand=${encodeURIComponent(brand)}`,
    )) as {
      content: { id: string }[];
    };
    productId = listed.content[0]?.id ?? "";
    expect(
      (await sendJson(platform.baseUrl, "POST", "/api/auth/register", undefined, customer)).status,
    ).to.equal(201);
  });
  after(async () => {
    await platform.stop();
    await fake.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("killed between the gateway's answer and the write: the retry gets the same gateway order, once", async () => {
    let token = await customerToken();
    const orderId = await placeOrder(token);
    const requestsBefore = fake.requests.length;
    const held = new Promise<() => Promise<void>>((arrived) => fake.script({ kind: "held", arrived }));
    const create = sendJson(platform.baseUrl, "POST", "/api/payments/create", token, {
      orderId,
      amount: price,
    }).then(
      ({ status }) => status,
      () => "cut off",
    );
    const answer = await held;
    process.kill(platform.pid, "SIGSTOP");
    await answer(); // the gateway has answered, into a process that cannot read it
    await platform.kill();
    expect(await create).to.equal("cut off");
    const [made] = fake.requests.slice(requestsBefore);
    const key = made?.idempotencyKey ?? "";
    const gatewayOrder = fake.orders.get(key);
    expect(gatewayOrder?.id).to.match(/^order_/);

    await restart();
    token = await customerToken();
    expect(await myPayments(token), "nothing was written before the crash").to.deep.equal([]);
    expect(await sendCallback(gatewayOrder?.id ?? ""), "nobody knows that gateway order yet").to.deep.equal({
      status: 200,
      body: { message: "callback ignored: unknown gateway order" },
    });
    const retried = await sendJson(platform.baseUrl, "POST", "/api/payments/create", token, {
      orderId,
      amount: price,
    });
    expect(retried).to.deep.equal({
      status: 200,
      body: {
        providerOrderId: gatewayOrder?.id,
        amount: price,
        currency: "INR",
        checkout: { url: `${fake.url}/v1/checkout/embedded`, keyId: credentials.keyId },
      },
    });
    expect(fake.requests.slice(requestsBefore).map(({ idempotencyKey }) => idempotencyKey)).to.deep.equal([
      key,
      key,
    ]);
    expect(fake.orders.get(key)).to.deep.equal(gatewayOrder);
    await expectPaidOnce(token, orderId, key, gatewayOrder?.id ?? "");
  });

  it("killed after the write, before the answer reached the client: the retry answers the same, changes nothing", async () => {
    let token = await customerToken();
    const orderId = await placeOrder(token);
    const requestsBefore = fake.requests.length;
    const live = platform;
    await postUntilAnswered(live.baseUrl, "/api/payments/create", token, { orderId, amount: price }, () =>
      process.kill(live.pid, "SIGSTOP"),
    );
    await live.kill();
    const [made] = fake.requests.slice(requestsBefore);
    const key = made?.idempotencyKey ?? "";
    const gatewayOrder = fake.orders.get(key);
    expect(gatewayOrder?.id).to.match(/^order_/);

    await restart();
    token = await customerToken();
    const retried = await sendJson(platform.baseUrl, "POST", "/api/payments/create", token, {
      orderId,
      amount: price,
    });
    expect(retried).to.deep.equal({
      status: 200,
      body: {
        providerOrderId: gatewayOrder?.id,
        amount: price,
        currency: "INR",
        checkout: { url: `${fake.url}/v1/checkout/embedded`, keyId: credentials.keyId },
      },
    });
    expect(fake.requests.length - requestsBefore, "the retry reuses the stored payment").to.equal(1);
    await expectPaidOnce(token, orderId, key, gatewayOrder?.id ?? "");
  });
});
