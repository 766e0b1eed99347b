import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnvReader } from "@commerce/runtime/config";
import { createLogger } from "@commerce/runtime/logging";
import { startTelemetry, type Telemetry, readTelemetrySettings } from "@commerce/runtime/telemetry";
import { eventually } from "@commerce/runtime/testing";
import { loadEmbeddedConfig } from "./embedded-config.js";
import { edgeClient } from "./testing/edge-client.js";
import { startPlatform, type RunningPlatform } from "./embedded-platform.js";

const admin = { email: "admin@tracing.test", password: "tracing-admin-pw" };
const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const clientSpanId = "00f067aa0ba902b7";

describe("tracing in the embedded platform", () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry;
  let dataDir: string;
  let platform: RunningPlatform;

  const { call, login } = edgeClient(() => platform.url);

  /** The spans of the trace whose edge span answered `status`, once that span has ended. */
  async function traceOf(predicate: (edge: ReadableSpan) => boolean): Promise<ReadableSpan[]> {
    const edge = await eventually(
      () =>
        exporter.getFinishedSpans().find((span) => serviceOf(span) === "commerce-edge" && predicate(span)),
      5_000,
      "the edge's span",
    );
    return exporter
      .getFinishedSpans()
      .filter((span) => span.spanContext().traceId === edge.spanContext().traceId);
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "tracing-spec-"));
    const settings = readTelemetrySettings(new EnvReader({ OTEL_TRACES_EXPORTER: "otlp" }));
    telemetry = startTelemetry(settings, {
      singleService: false,
      spanProcessor: new SimpleSpanProcessor(exporter),
    });
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
  beforeEach(() => exporter.reset());

  it("follows an order from the edge through the Order service to the Product service in one trace", async () => {
    const adminToken = await login(admin.email, admin.password);
    const brand = `Tracing ${randomBytes(4).toString("hex")}`;
    const product = { name: "Traced lamp", price: 120, stock: 5, brand, categoryId: "electronics" };
    expect((await call("POST", "/api/products", { token: adminToken, body: product })).status).to.equal(201);
    const listed = await call("GET", `/api/products?brand=${encodeURIComponent(brand)}`);
    const productId = (listed.body as { content: { id: string }[] }).content[0]?.id;
    const customer = {
      fullName: "Asha Verma",
      email: "asha@tracing.test",
      phoneNo: "+919876543210",
      password: "pw-asha-123",
    };
    expect((await call("POST", "/api/auth/register", { body: customer })).status).to.equal(201);
    const token = await login(customer.email, customer.password);
    exporter.reset();

    const placed = await call("POST", "/api/orders", {
      token,
      body: { items: [{ productId, quantity: 1 }] },
      headers: { traceparent: `00-${traceId}-${clientSpanId}-01` },
    });
    expect(placed.status).to.equal(201);

    const spans = await traceOf((span) => span.name === "POST /api/orders");
    expect(spans[0]?.spanContext().traceId).to.equal(traceId);
    const edge = one(spans, (s) => serviceOf(s) === "commerce-edge");
    expect(edge.kind).to.equal(SpanKind.SERVER);
    expect(edge.parentSpanContext?.spanId).to.equal(clientSpanId);
    expect(edge.attributes).to.deep.equal({
      "http.request.method": "POST",
      "url.scheme": "http",
      "http.route": "/api/orders",
      "http.response.status_code": 201,
    });
    const order = one(spans, (s) => s.name === "commerce.order.v1.OrderService/PlaceOrder");
    expect(serviceOf(order)).to.equal("commerce-order");
    expect(order.kind).to.equal(SpanKind.SERVER);
    expect(order.parentSpanContext?.spanId).to.equal(edge.spanContext().spanId);
    expect(order.attributes).to.include({ "rpc.system": "connect_rpc", "rpc.method": "PlaceOrder" });
    const reserve = one(
      spans,
      (s) => s.kind === SpanKind.CLIENT && s.name === "commerce.product.v1.InventoryService/ReserveStock",
    );
    expect(serviceOf(reserve)).to.equal("commerce-order");
    expect(reserve.parentSpanContext?.spanId).to.equal(order.spanContext().spanId);
    const reserved = one(
      spans,
      (s) => s.kind === SpanKind.SERVER && s.name === "commerce.product.v1.InventoryService/ReserveStock",
    );
    expect(serviceOf(reserved)).to.equal("commerce-product");
    expect(reserved.parentSpanContext?.spanId).to.equal(reserve.spanContext().spanId);
    expect(reserved.attributes).to.deep.equal({
      "rpc.system": "connect_rpc",
      "rpc.service": "commerce.product.v1.InventoryService",
      "rpc.method": "ReserveStock",
    });
    // The store's work: a CLIENT span per operation, under the SERVER span of the request.
    const inserted = one(spans, (s) => s.name === "insert orders");
    expect(serviceOf(inserted)).to.equal("commerce-order");
    expect(inserted.kind).to.equal(SpanKind.CLIENT);
    expect(inserted.parentSpanContext?.spanId).to.equal(order.spanContext().spanId);
    expect(inserted.attributes).to.deep.equal({
      "db.system.name": "commerce_embedded_store",
      "db.namespace": "commerce_order",
      "db.collection.name": "orders",
      "db.operation.name": "insert",
    });
    const reservationWork = spans
      .filter(
        (s) => s.parentSpanContext?.spanId === reserved.spanContext().spanId && s.kind === SpanKind.CLIENT,
      )
      .map((s) => `${String(serviceOf(s))}: ${s.name} (${String(s.attributes["db.namespace"])})`);
    expect(reservationWork).to.include.members([
      "commerce-product: insert reservations (commerce_product)",
      "commerce-product: update reservations (commerce_product)",
    ]);
    for (const span of spans) expect(span.status.code, span.name).to.equal(SpanStatusCode.UNSET);
  });

  it("carries an order's trace through ORDER_PLACED: the relay's PRODUCER span and the consumer's CONSUMER span", async () => {
    const adminToken = await login(admin.email, admin.password);
    const brand = `Events ${randomBytes(4).toString("hex")}`;
    const product = { name: "Evented lamp", price: 80, stock: 5, brand, categoryId: "electronics" };
    expect((await call("POST", "/api/products", { token: adminToken, body: product })).status).to.equal(201);
    const listed = await call("GET", `/api/products?brand=${encodeURIComponent(brand)}`);
    const productId = (listed.body as { content: { id: string }[] }).content[0]?.id;
    const customer = {
      fullName: "Ravi Menon",
      email: "ravi@tracing.test",
      phoneNo: "+919876543211",
      password: "pw-ravi-123",
    };
    expect((await call("POST", "/api/auth/register", { body: customer })).status).to.equal(201);
    const token = await login(customer.email, customer.password);
    const eventTraceId = "5bf92f3577b34da6a3ce929d0e0e4737";
    exporter.reset();

    const placed = await call("POST", "/api/orders", {
      token,
      body: { items: [{ productId, quantity: 1 }] },
      headers: { traceparent: `00-${eventTraceId}-${clientSpanId}-01`, tracestate: "vendor=abc" },
    });
    expect(placed.status).to.equal(201);

    const inTrace = (span: ReadableSpan): boolean => span.spanContext().traceId === eventTraceId;
    const consumer = await eventually(
      () =>
        exporter
          .getFinishedSpans()
          .find(
            (s) =>
              inTrace(s) &&
              s.kind === SpanKind.CONSUMER &&
              serviceOf(s) === "commerce-notification" &&
              s.attributes["messaging.destination.name"] === "order-events",
          ),
      5_000,
      "the Notification service's consumer span",
    );
    const isProducer = (s: ReadableSpan): boolean =>
      inTrace(s) &&
      s.kind === SpanKind.PRODUCER &&
      s.attributes["messaging.destination.name"] === "order-events";
    await eventually(() => exporter.getFinishedSpans().find(isProducer), 5_000, "the relay's span");
    const spans = exporter.getFinishedSpans().filter(inTrace);
    const order = one(spans, (s) => s.name === "commerce.order.v1.OrderService/PlaceOrder");
    // The event was recorded in the PlaceOrder span: its traceparent names that span.
    const producer = one(spans, isProducer);
    expect(serviceOf(producer)).to.equal("commerce-order");
    expect(producer.name).to.equal("send order-events");
    expect(producer.parentSpanContext?.spanId).to.equal(order.spanContext().spanId);
    expect(producer.attributes).to.include({
      "messaging.system": "commerce_embedded_log",
      "messaging.operation.type": "send",
    });
    expect(consumer.name).to.equal("process order-events");
    expect(consumer.parentSpanContext?.spanId).to.equal(order.spanContext().spanId);
    expect(consumer.spanContext().traceState?.serialize()).to.equal("vendor=abc");
    expect(consumer.attributes).to.include({
      "messaging.system": "commerce_embedded_log",
      "messaging.destination.name": "order-events",
      "messaging.operation.type": "process",
      "messaging.consumer.group.name": "notification-service",
      "messaging.message.id": producer.attributes["messaging.message.id"],
    });
    // The consumer's store work hangs under its CONSUMER span.
    const stored = spans.filter(
      (s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === consumer.spanContext().spanId,
    );
    expect(stored.map((s) => s.name)).to.include("insert notifications");
    for (const span of stored) {
      expect(serviceOf(span)).to.equal("commerce-notification");
      expect(span.attributes["db.namespace"]).to.equal("commerce_notification");
    }
  });

  it("writes the stream processor's batches and reads the Analytics service's figures under ClickHouse spans", async () => {
    const adminToken = await login(admin.email, admin.password);
    const customer = {
      fullName: "Meera Iyer",
      email: "meera@tracing.test",
      phoneNo: "+919876543212",
      password: "pw-meera-123",
    };
    expect((await call("POST", "/api/auth/register", { body: customer })).status).to.equal(201);
    const insert = await eventually(
      () =>
        exporter
          .getFinishedSpans()
          .find(
            (s) => s.name === "INSERT user_event_rows" && serviceOf(s) === "commerce-analytics-processor",
          ),
      10_000,
      "the stream processor's insert span",
    );
    expect(insert.kind).to.equal(SpanKind.CLIENT);
    expect(insert.attributes).to.deep.equal({
      "db.system.name": "clickhouse",
      "db.namespace": "default",
      "db.collection.name": "user_event_rows",
      "db.operation.name": "INSERT",
    });
    // The batch's span ends after its statements' spans.
    const batch = await eventually(
      () =>
        exporter.getFinishedSpans().find((s) => s.spanContext().spanId === insert.parentSpanContext?.spanId),
      5_000,
      "the batch's consumer span",
    );
    expect(batch.kind).to.equal(SpanKind.CONSUMER);
    expect(batch.name).to.equal("process auth-events");
    const rollups = exporter
      .getFinishedSpans()
      .filter((s) => s.parentSpanContext?.spanId === batch.spanContext().spanId)
      .map((s) => s.name);
    expect(rollups).to.deep.equal([
      "INSERT user_event_rows",
      "INSERT figures_by_second",
      "INSERT figures_by_day",
    ]);

    exporter.reset();
    expect((await call("GET", "/api/analytics/dashboard", { token: adminToken })).status).to.equal(200);
    const spans = await traceOf((span) => span.name === "GET /api/analytics/dashboard");
    const served = one(spans, (s) => s.kind === SpanKind.SERVER && serviceOf(s) === "commerce-analytics");
    const read = one(spans, (s) => s.name === "SELECT figures_by_day");
    expect(read.kind).to.equal(SpanKind.CLIENT);
    expect(serviceOf(read)).to.equal("commerce-analytics");
    expect(read.parentSpanContext?.spanId).to.equal(served.spanContext().spanId);
    expect(JSON.stringify(spans.map((s) => s.attributes))).to.not.contain("meera");
  });

  it("records a refused call: the route template and the status, with no error for a client's mistake", async () => {
    expect((await call("GET", "/api/products/no-such-product")).status).to.equal(404);
    const spans = await traceOf((span) => span.name === "GET /api/products/{product_id}");
    const edge = one(spans, (s) => serviceOf(s) === "commerce-edge");
    expect(edge.attributes).to.include({
      "http.route": "/api/products/{product_id}",
      "http.response.status_code": 404,
    });
    expect(edge.status.code).to.equal(SpanStatusCode.UNSET);
    const served = one(spans, (s) => s.name === "commerce.product.v1.ProductService/GetProduct");
    expect(served.parentSpanContext?.spanId).to.equal(edge.spanContext().spanId);
    expect(served.attributes["rpc.connect_rpc.error_code"]).to.equal("not_found");
    expect(served.status.code).to.equal(SpanStatusCode.UNSET);

    const token = await login(admin.email, admin.password);
    exporter.reset();
    const refused = await call("POST", "/api/orders", {
      token,
      body: { items: [{ productId: "gone", quantity: 1 }] },
    });
    expect(refused.status).to.be.within(400, 499);
    const orderSpans = await traceOf((span) => span.name === "POST /api/orders");
    const order = one(orderSpans, (s) => s.name === "commerce.order.v1.OrderService/PlaceOrder");
    expect(order.attributes["rpc.connect_rpc.error_code"]).to.equal("not_found");
    // The Product service answered the lookup; the Order service refused the order: no fault.
    for (const span of orderSpans) expect(span.status.code, span.name).to.equal(SpanStatusCode.UNSET);
    expect(orderSpans.map((s) => s.name)).to.include(
      "commerce.product.v1.InventoryService/GetProductsForOrder",
    );
  });

  it("puts none of the submitted credentials, nor the token, in a login's spans", async () => {
    const token = await login(admin.email, admin.password);
    const spans = await traceOf((span) => span.name === "POST /api/auth/login");
    expect(spans.map((s) => s.name)).to.include("commerce.auth.v1.AuthService/Login");
    // The Auth service's reads of the account are in the trace: the check below covers them.
    expect(spans.filter((s) => s.attributes["db.system.name"] !== undefined)).to.not.deep.equal([]);
    const recorded = JSON.stringify(
      spans.map((s) => ({
        name: s.name,
        attributes: s.attributes,
        events: s.events,
        status: s.status,
        links: s.links,
      })),
    );
    for (const secret of [admin.email, admin.password, token, "tracing.test"]) {
      expect(recorded).to.not.contain(secret);
    }
  });
});

function serviceOf(span: ReadableSpan): unknown {
  return span.resource.attributes["service.name"];
}

function one(spans: readonly ReadableSpan[], predicate: (span: ReadableSpan) => boolean): ReadableSpan {
  const found = spans.filter(predicate);
  expect(found, JSON.stringify(spans.map((s) => s.name))).to.have.length(1);
  return found[0] as ReadableSpan;
}
