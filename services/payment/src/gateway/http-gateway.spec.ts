import { expect } from "chai";
import { createServer } from "node:net";
import { startFakeGateway, type FakeGateway } from "../testing/fake-gateway-server.js";
import { createHttpGateway, type HttpGatewayOptions } from "./http-gateway.js";
import { GatewayError } from "./payment-gateway.js";

const credentials = { keyId: "rzp_test_key", keySecret: "key-secret-0123456789abcdef" };
const request = { amountMinor: 7996, currency: "INR", receipt: "pay_1", idempotencyKey: "pay_1" };

async function failure(call: Promise<unknown>): Promise<GatewayError> {
  try {
    await call;
  } catch (error) {
    expect(error).to.be.instanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("expected a GatewayError");
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("Razorpay-compatible HTTP gateway", () => {
  let fake: FakeGateway;
  beforeEach(async () => {
    fake = await startFakeGateway(credentials);
  });
  afterEach(() => fake.close());

  const gateway = (options: Partial<HttpGatewayOptions> = {}) =>
    createHttpGateway({
      baseUrl: fake.url,
      ...credentials,
      attemptTimeoutMs: 300,
      retryPauseMs: 10,
      ...options,
    });

  it("creates an order with basic auth, the amount in paise, currency, receipt and the idempotency key", async () => {
    const order = await gateway().createOrder(request);
    const made = fake.orders.get("pay_1");
    expect(order).to.deep.equal({ id: made?.id, amountMinor: 7996, currency: "INR" });
    expect(fake.requests).to.have.length(1);
    const [sent] = fake.requests;
    expect(sent?.authorization).to.equal(
      `Basic ${Buffer.from("rzp_test_key:key-secret-0123456789abcdef").toString("base64")}`,
    );
    expect(sent?.idempotencyKey).to.equal("pay_1");
    expect(JSON.parse(sent?.body ?? "")).to.deep.equal({ amount: 7996, currency: "INR", receipt: "pay_1" });
  });

  it("retries a slow answer with the same key: one gateway order, not two", async () => {
    fake.script({ kind: "slow", delayMs: 1_000 });
    const order = await gateway().createOrder(request);
    expect(fake.requests.map((r) => r.idempotencyKey)).to.deep.equal(["pay_1", "pay_1"]);
    expect(fake.orders.size).to.equal(1);
    expect(order.id).to.equal(fake.orders.get("pay_1")?.id);
  });

  it("retries error statuses and gives up after the bound, with a GatewayError", async () => {
    fake.script({ kind: "status", status: 502 }, { kind: "status", status: 429 });
    expect((await gateway().createOrder(request)).id).to.match(/^order_/);
    expect(fake.requests).to.have.length(3);

    fake.script(...Array.from({ length: 5 }, () => ({ kind: "status" as const, status: 500 })));
    const error = await failure(
      gateway({ maxAttempts: 3 }).createOrder({ ...request, idempotencyKey: "pay_2" }),
    );
    expect(error.message).to.include("500");
    expect(fake.requests).to.have.length(6);
  });

  it("does not retry a client error: the same request would be refused again", async () => {
    fake.script({ kind: "status", status: 400 });
    await failure(gateway().createOrder(request));
    expect(fake.requests).to.have.length(1);
    await failure(
      createHttpGateway({ baseUrl: fake.url, keyId: "wrong", keySecret: "wrong" }).createOrder(request),
    );
    expect(fake.requests).to.have.length(2); // 401: not retried either
  });

  it("refuses garbage: not JSON, no id, an order for another amount", async () => {
    const garbage = (body: string) => ({ kind: "garbage" as const, body });
    fake.script(garbage("<html>oops"), garbage("<html>oops"), garbage("<html>oops"));
    expect((await failure(gateway().createOrder(request))).message).to.include("malformed");
    fake.script(garbage("{}"), garbage("[1]"), garbage('{"id":""}'));
    expect((await failure(gateway().createOrder(request))).message).to.include("order id");
    fake.script(garbage('{"id":"order_X","amount":1,"currency":"INR"}'));
    expect((await failure(gateway().createOrder(request))).message).to.include("not 7996 INR");
    expect(fake.requests).to.have.length(7); // the wrong amount is not retried
  });

  it("fails with a GatewayError when the gateway always times out or cannot be reached", async () => {
    fake.script(...Array.from({ length: 3 }, () => ({ kind: "slow" as const, delayMs: 1_000 })));
    const started = Date.now();
    expect((await failure(gateway().createOrder(request))).message).to.include("too slow");
    expect(Date.now() - started).to.be.lessThan(2_000); // 3 × 300 ms deadlines and short pauses
    const refused = createHttpGateway({ baseUrl: `http://127.0.0.1:${await closedPort()}`, ...credentials });
    expect((await failure(refused.createOrder(request))).message).to.include("unreachable");
  });
});
