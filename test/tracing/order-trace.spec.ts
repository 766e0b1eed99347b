/**
 * The end-to-end proof of tracing on the multi-process topology: an order is placed, a payment
 * opened and captured through Envoy, each request carrying a caller's W3C `traceparent`, and the
 * traces are read back from a real Jaeger (its query API, JAEGER_QUERY_URL). Each request is one
 * trace: Envoy's span, the service's RPC SERVER span, its peer calls (CLIENT, and the peer's
 * SERVER), its MongoDB operations, the outbox relay's PRODUCER span, and the consumers' CONSUMER
 * spans in other processes, reached through the Kafka record's headers. The stream processor's
 * and the Recommendation service's batch spans link to the request, and their ClickHouse
 * statements (inserts, and the reads that sum and rank again) are the batch's children.
 *
 * npm test runs it against the cluster it starts (ADR 0062).
 */
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { spansOfService, spansOfTrace, type TracedSpan } from "#infra/jaeger-query.js";
import { registeredUser, type TestUser } from "../acceptance/support/accounts.js";
import { api } from "../acceptance/support/api.js";
import { createdProduct } from "../acceptance/support/catalog.js";
import { callbackBody, orderStatus, webhookSignature } from "../acceptance/support/payments.js";
import { pollUntil } from "../acceptance/support/polling.js";

function queryUrl(): string {
  const url = process.env["JAEGER_QUERY_URL"];
  if (url === undefined || url === "")
    throw new Error("the tracing suite needs JAEGER_QUERY_URL (npm test sets it)");
  return url;
}

/** A caller's traceparent: a fresh trace id and the caller's own span id. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

type Expectation = (span: TracedSpan) => boolean;

/**
 * The spans of `traceId` once every expectation matches one of them. Envoy's tracer flushes
 * every 5 s, the services' batch processors every second (OTEL_BSP_SCHEDULE_DELAY): the deadline
 * leaves room for both and for the consumers.
 */
async function awaitTrace(
  traceId: string,
  expected: Readonly<Record<string, Expectation>>,
): Promise<TracedSpan[]> {
  let spans: TracedSpan[] = [];
  try {
    return await pollUntil(
      `trace ${traceId}`,
      async () => {
        spans = await spansOfTrace(queryUrl(), traceId);
        return Object.values(expected).every((matches) => spans.some(matches)) ? spans : undefined;
      },
      45_000,
    );
  } catch (error) {
    const missing = Object.entries(expected)
      .filter(([, matches]) => !spans.some(matches))
      .map(([what]) => what);
    const held = spans.map((s) => `${s.service} ${s.kind} ${s.name}`).join("\n  ");
    throw new Error(`${String(error)}\nmissing: ${missing.join("; ")}\nthe trace holds:\n  ${held}`, {
      cause: error,
    });
  }
}

/** The one span that matches. */
function one(spans: readonly TracedSpan[], what: string, matches: Expectation): TracedSpan {
  const found = spans.filter(matches);
  expect(found, `${what}: ${found.map((s) => s.name).join(", ")}`).to.have.length(1);
  return found[0] as TracedSpan;
}

/**
 * The spans that match, at least one. Delivery is at least once: two replicas' relays may both
 * publish an entry before either removes it, so one event can show two PRODUCER spans (with the
 * same message id) and each consumer two CONSUMER spans.
 */
function some(spans: readonly TracedSpan[], what: string, matches: Expectation): TracedSpan[] {
  const found = spans.filter(matches);
  expect(found, what).not.to.be.empty;
  return found;
}

/** The one message id the spans carry (the same event, however often it was delivered). */
function messageIdOf(spans: readonly TracedSpan[]): unknown {
  const ids = new Set(spans.map((s) => s.attributes["messaging.message.id"]));
  expect(ids.size, "one event").to.equal(1);
  return [...ids][0];
}

const named =
  (service: string, kind: string, name: string): Expectation =>
  (span) =>
    span.service === service && span.kind === kind && span.name === name;

/** A MongoDB operation of `service` on `collection`, a child of `parent` (a span id). */
const mongoOperation =
  (service: string, collection: string, parent: () => string | undefined): Expectation =>
  (span) =>
    span.service === service &&
    span.kind === "client" &&
    span.attributes["db.system.name"] === "mongodb" &&
    span.attributes["db.collection.name"] === collection &&
    span.parentId === parent();

/** Every attribute value of every span, as text. */
const attributeText = (spans: readonly TracedSpan[]): string =>
  spans.flatMap((span) => Object.values(span.attributes).map(String)).join("\n");

describe("one trace per request: Envoy → services → MongoDB → Kafka → consumers → ClickHouse (Jaeger)", function () {
  this.timeout(180_000);
  const started = Date.now();
  const place = callerContext();
  const open = callerContext();
  const capture = callerContext();
  let customer: TestUser;
  let orderId: string;

  before(async () => {
    customer = await registeredUser("traced");
    const productId = await createdProduct({ price: 42.5, stock: 10 });
    const placed = await api("POST", "/api/orders", {
      token: customer.token,
      body: { items: [{ productId, quantity: 2 }] },
      headers: { traceparent: place.traceparent },
    });
    expect(placed.status, placed.text).to.equal(201);
    orderId = (placed.body as { orderId: string }).orderId;

    const opened = await api("POST", "/api/payments/create", {
      token: customer.token,
      body: { orderId, amount: 85 },
      headers: { traceparent: open.traceparent },
    });
    expect(opened.status, opened.text).to.equal(200);
    const providerOrderId = (opened.body as { providerOrderId: string }).providerOrderId;

    const body = callbackBody(providerOrderId, "paid");
    const captured = await api("POST", "/api/payments/callback", {
      rawBody: body,
      headers: {
        "content-type": "application/json",
        "x-payment-signature": webhookSignature(body),
        traceparent: capture.traceparent,
      },
    });
    expect(captured.status, captured.text).to.equal(200);
    await pollUntil(`order ${orderId} CONFIRMED`, async () =>
      (await orderStatus(customer.token, orderId)) === "CONFIRMED" ? true : undefined,
    );
  });

  it("places the order in one trace: Envoy → Order SERVER → ReserveStock CLIENT → Product SERVER, each with its MongoDB spans", async () => {
    const spans = await awaitTrace(place.traceId, {
      "Envoy's span": (s) => s.service === "commerce-edge" && s.kind === "server",
      "PlaceOrder SERVER": named("commerce-order", "server", "commerce.order.v1.OrderService/PlaceOrder"),
      "ReserveStock CLIENT": named(
        "commerce-order",
        "client",
        "commerce.product.v1.InventoryService/ReserveStock",
      ),
      "ReserveStock SERVER": named(
        "commerce-product",
        "server",
        "commerce.product.v1.InventoryService/ReserveStock",
      ),
      "the order's insert": (s) =>
        s.service === "commerce-order" && s.attributes["db.collection.name"] === "orders",
      "a Product MongoDB span": (s) =>
        s.service === "commerce-product" && s.attributes["db.system.name"] === "mongodb",
    });

    const edge = one(spans, "Envoy's span", (s) => s.service === "commerce-edge");
    expect(edge.parentId, "Envoy continues the caller's context").to.equal(place.spanId);
    const order = one(
      spans,
      "PlaceOrder SERVER",
      named("commerce-order", "server", "commerce.order.v1.OrderService/PlaceOrder"),
    );
    expect(order.parentId, "the service's span is Envoy's child").to.equal(edge.spanId);
    expect(order.attributes).to.include({
      "rpc.system": "grpc",
      "rpc.service": "commerce.order.v1.OrderService",
      "rpc.method": "PlaceOrder",
      "rpc.grpc.status_code": 0,
    });
    const reserve = one(
      spans,
      "ReserveStock CLIENT",
      named("commerce-order", "client", "commerce.product.v1.InventoryService/ReserveStock"),
    );
    expect(reserve.parentId).to.equal(order.spanId);
    const reserved = one(
      spans,
      "ReserveStock SERVER",
      named("commerce-product", "server", "commerce.product.v1.InventoryService/ReserveStock"),
    );
    expect(reserved.parentId, "the peer's span is the caller's CLIENT span's child").to.equal(reserve.spanId);

    const orderInsert = spans.filter(mongoOperation("commerce-order", "orders", () => order.spanId));
    expect(orderInsert.map((s) => s.name)).to.include("insert orders");
    for (const span of orderInsert) {
      expect(span.attributes).to.include({ "db.system.name": "mongodb", "db.collection.name": "orders" });
      expect(span.attributes["db.namespace"]).to.be.a("string").and.not.equal("");
    }
    const productOperations = spans.filter(
      (s) =>
        s.service === "commerce-product" &&
        s.kind === "client" &&
        s.attributes["db.system.name"] === "mongodb",
    );
    // Every one under one of the Product service's own spans: its RPCs (the order reads the
    // products, then reserves) and its consumer of ORDER_PLACED.
    const productSpans = new Set(
      spans
        .filter((s) => s.service === "commerce-product" && (s.kind === "server" || s.kind === "consumer"))
        .map((s) => s.spanId),
    );
    for (const span of productOperations) expect(productSpans).to.include(span.parentId);
    const reservation = productOperations.filter((s) => s.parentId === reserved.spanId);
    expect(
      reservation.map((s) => s.name),
      "the reservation's MongoDB operations",
    ).to.include.members(["find products"]);
    for (const span of spans) expect(span.attributes["otel.status_code"], span.name).not.to.equal("ERROR");
  });

  it("carries ORDER_PLACED in that trace: the relay's PRODUCER span and Notification's CONSUMER span through Kafka", async () => {
    const spans = await awaitTrace(place.traceId, {
      "PlaceOrder SERVER": named("commerce-order", "server", "commerce.order.v1.OrderService/PlaceOrder"),
      "the relay's PRODUCER": named("commerce-order", "producer", "send order-events"),
      "Notification's CONSUMER": named("commerce-notification", "consumer", "process order-events"),
      "Notification's insert": (s) =>
        s.service === "commerce-notification" && s.attributes["db.collection.name"] === "notifications",
    });
    const order = one(
      spans,
      "PlaceOrder SERVER",
      named("commerce-order", "server", "commerce.order.v1.OrderService/PlaceOrder"),
    );
    const producers = some(
      spans,
      "the relay's PRODUCER",
      named("commerce-order", "producer", "send order-events"),
    );
    const eventId = messageIdOf(producers);
    for (const producer of producers) {
      // The event was recorded inside PlaceOrder: its context, not the relay's, names the cause.
      expect(producer.parentId).to.equal(order.spanId);
      expect(producer.attributes).to.include({
        "messaging.system": "kafka",
        "messaging.destination.name": "order-events",
        "messaging.operation.type": "send",
      });
    }
    const consumers = some(
      spans,
      "Notification's CONSUMER",
      named("commerce-notification", "consumer", "process order-events"),
    );
    for (const consumer of consumers) {
      // It crossed Kafka in the record's traceparent header, to another process.
      expect(consumer.parentId).to.equal(order.spanId);
      expect(consumer.attributes).to.include({
        "messaging.system": "kafka",
        "messaging.destination.name": "order-events",
        "messaging.operation.type": "process",
        "messaging.consumer.group.name": "notification-service",
        "messaging.message.id": eventId,
      });
    }
    const notices = spans.filter((s) =>
      consumers.some((c) => mongoOperation("commerce-notification", "notifications", () => c.spanId)(s)),
    );
    expect(notices.map((s) => s.name)).to.include("insert notifications");
  });

  /** `service`'s batch of the order's event (group `group`) links to the order, its ClickHouse statements its children. */
  async function batchLinkedToTheOrder(service: string, group: string): Promise<void> {
    let placeOrderSpanId: string | undefined;
    await awaitTrace(place.traceId, {
      "PlaceOrder SERVER": (s) => {
        const matches = named("commerce-order", "server", "commerce.order.v1.OrderService/PlaceOrder")(s);
        if (matches) placeOrderSpanId = s.spanId;
        return matches;
      },
    });
    const linksToOrder = (s: TracedSpan): boolean =>
      s.links.some((link) => link.traceId === place.traceId && link.spanId === placeOrderSpanId);
    const spans = await pollUntil(
      `${service}'s batch linked to the order`,
      async () => {
        const found = await spansOfService(queryUrl(), service, {
          limit: 1_000,
          lookbackMs: Date.now() - started + 60_000,
        });
        const batch = found.find(linksToOrder);
        const inserts = found.filter(
          (s) => s.parentId === batch?.spanId && s.attributes["db.system.name"] === "clickhouse",
        );
        return batch !== undefined && inserts.length > 0 ? found : undefined;
      },
      45_000,
    );
    const [batch, ...again] = some(spans, "the batch linked to the order", linksToOrder);
    if (batch === undefined) return;
    // A second batch only when the record was delivered twice (see `some`): the same kind of span.
    for (const other of again) expect(other.name).to.equal(batch.name);
    expect(batch.kind).to.equal("consumer");
    expect(batch.name).to.equal("process order-events");
    expect(batch.parentId, "a batch has many causes: a root with links").to.equal(undefined);
    expect(batch.attributes).to.include({
      "messaging.system": "kafka",
      "messaging.destination.name": "order-events",
      "messaging.consumer.group.name": group,
    });
    // Its inserts, and the reads a consumer makes to sum and rank again (the Recommendation
    // service's), each named by its operation and table.
    const statements = spans.filter(
      (s) => s.parentId === batch.spanId && s.attributes["db.system.name"] === "clickhouse",
    );
    expect(statements.map((s) => s.name)).to.satisfy((names: string[]) =>
      names.some((n) => n.startsWith("INSERT ")),
    );
    for (const statement of statements) {
      expect(statement.kind).to.equal("client");
      const [operation, table] = statement.name.split(" ");
      expect(operation).to.be.oneOf(["INSERT", "SELECT"]);
      expect(statement.attributes["db.collection.name"]).to.equal(table);
    }
  }

  it("links the stream processor's batch to the order's request, and its ClickHouse insert is the batch's child", () =>
    batchLinkedToTheOrder("commerce-analytics-processor", "analytics-processor"));

  it("links the Recommendation service's batch to the order's request, and its ClickHouse statements are the batch's children", () =>
    batchLinkedToTheOrder("commerce-recommendation", "recommendation-service"));

  it("follows the captured payment: Payment SERVER → PRODUCER payment-events → Order's CONSUMER confirms the order", async () => {
    const spans = await awaitTrace(capture.traceId, {
      "Envoy's span": (s) => s.service === "commerce-edge" && s.kind === "server",
      "HandleCallback SERVER": named(
        "commerce-payment",
        "server",
        "commerce.payment.v1.PaymentService/HandleCallback",
      ),
      "the relay's PRODUCER": named("commerce-payment", "producer", "send payment-events"),
      "Order's CONSUMER": named("commerce-order", "consumer", "process payment-events"),
      "Notification's CONSUMER": named("commerce-notification", "consumer", "process payment-events"),
      "the order's update": (s) =>
        s.service === "commerce-order" &&
        s.kind === "client" &&
        s.attributes["db.collection.name"] === "orders",
    });
    const edge = one(spans, "Envoy's span", (s) => s.service === "commerce-edge");
    expect(edge.parentId).to.equal(capture.spanId);
    const callback = one(
      spans,
      "HandleCallback SERVER",
      named("commerce-payment", "server", "commerce.payment.v1.PaymentService/HandleCallback"),
    );
    expect(callback.parentId).to.equal(edge.spanId);
    const payments = spans.filter(mongoOperation("commerce-payment", "payments", () => callback.spanId));
    expect(payments, "the payment's MongoDB operations").not.to.be.empty;
    const producers = some(
      spans,
      "the relay's PRODUCER",
      named("commerce-payment", "producer", "send payment-events"),
    );
    messageIdOf(producers);
    for (const producer of producers) expect(producer.parentId).to.equal(callback.spanId);
    const consumers = some(
      spans,
      "Order's CONSUMER",
      named("commerce-order", "consumer", "process payment-events"),
    );
    for (const consumer of consumers) expect(consumer.parentId).to.equal(callback.spanId);
    const orderWrites = spans.filter((s) =>
      consumers.some((c) => mongoOperation("commerce-order", "orders", () => c.spanId)(s)),
    );
    expect(orderWrites, "the order's MongoDB operations under the consumer").not.to.be.empty;
  });

  it("opens the payment in one trace with the Payment service's call to the Order service", async () => {
    const spans = await awaitTrace(open.traceId, {
      "CreatePayment SERVER": named(
        "commerce-payment",
        "server",
        "commerce.payment.v1.PaymentService/CreatePayment",
      ),
      "the Order service's SERVER span": (s) => s.service === "commerce-order" && s.kind === "server",
      "PRODUCER payment-events": named("commerce-payment", "producer", "send payment-events"),
    });
    const create = one(
      spans,
      "CreatePayment SERVER",
      named("commerce-payment", "server", "commerce.payment.v1.PaymentService/CreatePayment"),
    );
    const peer = one(
      spans,
      "the Order service's SERVER span",
      (s) => s.service === "commerce-order" && s.kind === "server",
    );
    const call = one(spans, "the Payment service's CLIENT span", (s) => s.spanId === peer.parentId);
    expect(call).to.include({ service: "commerce-payment", kind: "client", name: peer.name });
    expect(call.parentId).to.equal(create.spanId);
  });

  it("records no token, password, email, phone number or name in any span of these traces", async () => {
    const spans = (
      await Promise.all([place, open, capture].map(({ traceId }) => spansOfTrace(queryUrl(), traceId)))
    ).flat();
    expect(spans.length).to.be.greaterThan(10);
    const text = attributeText(spans);
    for (const secret of [
      customer.token,
      customer.password,
      customer.email,
      customer.phoneNo,
      customer.fullName,
    ]) {
      expect(text).not.to.include(secret);
    }
  });
});
