import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnvReader } from "@commerce/runtime/config";
import { createLogger } from "@commerce/runtime/logging";
import { startTelemetry, type Telemetry, readTelemetrySettings } from "@commerce/runtime/telemetry";
import { eventually, createMetricsProbe, type Point } from "@commerce/runtime/testing";
import { loadEmbeddedConfig } from "./embedded-config.js";
import { edgeClient } from "./testing/edge-client.js";
import { startPlatform, type RunningPlatform } from "./embedded-platform.js";

const admin = { email: "admin@metrics.test", password: "metrics-admin-pw" };

const countOf = (point: Point): number => (typeof point.value === "number" ? point.value : point.value.count);

describe("metrics in the embedded platform", () => {
  const probe = createMetricsProbe();
  let telemetry: Telemetry;
  let dataDir: string;
  let platform: RunningPlatform;

  const { call, login } = edgeClient(() => platform.url);

  async function points(service: string, metric: string): Promise<readonly Point[]> {
    return (await probe.metric(`commerce-${service}`, metric))?.points ?? [];
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "metrics-spec-"));
    // Metrics on, tracing off: the signals are independent.
    const settings = readTelemetrySettings(
      new EnvReader({ OTEL_METRICS_EXPORTER: "otlp", OTEL_TRACES_EXPORTER: "none" }),
    );
    telemetry = startTelemetry(settings, { singleService: false, metricReader: probe.readerFor });
    const config = loadEmbeddedConfig({
      DATA_DIR: dataDir,
      PORT: "0",
      GRPC_PORT: "0",
      JWT_SECRET: randomBytes(64).toString("hex"),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
    });
    platform = await startPlatform({ config, logger: createLogger("silent", "test"), telemetry });
  });
  after(async () => {
    await platform.close();
    await telemetry.shutdown();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("counts orders placed and payments by status, and measures the RPCs, consumers and outboxes behind them", async () => {
    const adminToken = await login(admin.email, admin.password);
    const brand = `Metrics ${randomBytes(4).toString("hex")}`;
    const product = { name: "Metered lamp", price: 40, stock: 5, brand, categoryId: "electronics" };
    expect((await call("POST", "/api/products", { token: adminToken, body: product })).status).to.equal(201);
    const listed = await call("GET", `/api/products?brand=${encodeURIComponent(brand)}`);
    const productId = (listed.body as { content: { id: string }[] }).content[0]?.id;
    const customer = {
      fullName: "Meera Iyer",
      email: "meera@metrics.test",
      phoneNo: "+919876543212",
      password: "pw-meera-123",
    };
    expect((await call("POST", "/api/auth/register", { body: customer })).status).to.equal(201);
    const token = await login(customer.email, customer.password);

    const orderIds: string[] = [];
    for (let n = 0; n < 2; n++) {
      const placed = await call("POST", "/api/orders", {
        token,
        body: { items: [{ productId, quantity: 1 }] },
      });
      expect(placed.status).to.equal(201);
      orderIds.push((placed.body as { orderId: string }).orderId);
    }
    const refused = await call("POST", "/api/orders", {
      token,
      body: { items: [{ productId, quantity: 99 }] },
    });
    expect(refused.status).to.equal(400);
    for (const [orderId, outcome] of [
      [orderIds[0], "paid"],
      [orderIds[1], "declined"],
    ] as const) {
      const created = await call("POST", "/api/payments/create", { token, body: { orderId, amount: 40 } });
      expect(created.status).to.equal(200);
      const { providerOrderId } = created.body as { providerOrderId: string };
      const checkout = await call("POST", "/api/payments/sandbox/checkout", {
        token,
        body: { providerOrderId, outcome },
      });
      expect(checkout.status).to.equal(200);
    }

    const placedOrders = await probe.metric("commerce-order", "commerce.orders.placed");
    expect(placedOrders).to.deep.equal({
      name: "commerce.orders.placed",
      unit: "{order}",
      points: [{ attributes: {}, value: 2 }],
    });
    const payments = await probe.metric("commerce-payment", "commerce.payments");
    expect(payments?.unit).to.equal("{payment}");
    expect(payments?.points).to.have.deep.members([
      { attributes: { "payment.status": "CREATED" }, value: 2 },
      { attributes: { "payment.status": "SUCCESS" }, value: 1 },
      { attributes: { "payment.status": "FAILED" }, value: 1 },
    ]);

    const placeOrder = (await points("order", "rpc.server.call.duration"))
      .filter((point) => point.attributes["rpc.method"] === "PlaceOrder")
      .map((point) => ({ attributes: point.attributes, count: countOf(point) }));
    const method = {
      "rpc.system": "connect_rpc",
      "rpc.service": "commerce.order.v1.OrderService",
      "rpc.method": "PlaceOrder",
    };
    expect(placeOrder).to.have.deep.members([
      { attributes: method, count: 2 },
      {
        attributes: {
          ...method,
          "rpc.connect_rpc.error_code": "invalid_argument",
          "error.type": "INVALID_ARGUMENT",
        },
        count: 1,
      },
    ]);

    // ORDER_PLACED (twice) reached the Notification service's consumer group, which caught up.
    const orderEvents = {
      "messaging.system": "commerce_embedded_log",
      "messaging.destination.name": "order-events",
      "messaging.consumer.group.name": "notification-service",
    };
    await eventually(
      async () => {
        const consumed = (await points("notification", "messaging.client.consumed.messages")).find(
          (point) => point.attributes["messaging.destination.name"] === "order-events",
        );
        return consumed !== undefined && countOf(consumed) >= 2 ? consumed : undefined;
      },
      5_000,
      "the notification consumer's records",
    );
    const processing = (await points("notification", "messaging.process.duration")).find(
      (point) => point.attributes["messaging.destination.name"] === "order-events",
    );
    expect(processing?.attributes).to.deep.equal({ ...orderEvents, "messaging.operation.name": "process" });
    await eventually(
      async () => {
        const lag = (await points("notification", "commerce.messaging.consumer.lag")).find(
          (point) => point.attributes["messaging.destination.name"] === "order-events",
        );
        return lag?.value === 0 ? lag : undefined;
      },
      5_000,
      "the notification consumer's lag back to 0",
    );
    for (const service of ["order", "payment"]) {
      await eventually(
        async () => ((await points(service, "commerce.outbox.backlog"))[0]?.value === 0 ? true : undefined),
        5_000,
        `${service}'s outbox drained`,
      );
    }
  });
});
