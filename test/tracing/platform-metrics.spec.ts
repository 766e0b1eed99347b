/**
 * The end-to-end proof of metrics on the multi-process topology: orders placed (one refused),
 * a payment opened and captured through Envoy, then the series every service exported over OTLP
 * read back from a real Jaeger's Prometheus endpoint (JAEGER_METRICS_URL). Counters are compared
 * with a scrape taken before, so the suite holds on a deployment that has served requests
 * already; replicas are summed (each replica is its own `instance`).
 */
import { expect } from "chai";
import { scrapePrometheus, sumOf, type PrometheusSample } from "#infra/prometheus-text.js";
import { registeredUser } from "../acceptance/support/accounts.js";
import { api } from "../acceptance/support/api.js";
import { createdProduct } from "../acceptance/support/catalog.js";
import { callbackBody, orderStatus, webhookSignature } from "../acceptance/support/payments.js";
import { pollUntil } from "../acceptance/support/polling.js";

function metricsUrl(): string {
  const url = process.env["JAEGER_METRICS_URL"];
  if (url === undefined || url === "")
    throw new Error("the metrics suite needs JAEGER_METRICS_URL (npm test sets it)");
  return url;
}

const placeOrder = {
  job: "commerce-order",
  rpc_service: "commerce.order.v1.OrderService",
  rpc_method: "PlaceOrder",
};
const rpcCount = "rpc_server_call_duration_seconds_count";
const orderEventsAtNotification = {
  job: "commerce-notification",
  messaging_system: "kafka",
  messaging_destination_name: "order-events",
  messaging_consumer_group_name: "notification-service",
};

const paymentEventsAtOrder = {
  job: "commerce-order",
  messaging_destination_name: "payment-events",
  messaging_consumer_group_name: "order-service",
};

/** The OK calls of PlaceOrder: its count series without `error_type`. */
const placeOrderOk = (samples: readonly PrometheusSample[]): number =>
  samples
    .filter(
      (s) =>
        s.name === rpcCount &&
        s.labels["error_type"] === undefined &&
        Object.entries(placeOrder).every(([k, v]) => s.labels[k] === v),
    )
    .reduce((total, s) => total + s.value, 0);

/** Longer than the export interval npm test gives every process (OTEL_METRIC_EXPORT_INTERVAL, 2 s). */
const quietMs = 3_000;

/**
 * A scrape once every process has exported what it counted so far: two scrapes `quietMs` apart
 * with the same samples (what a suite run just before still had to export would otherwise land
 * in this suite's differences).
 */
async function settledScrape(): Promise<PrometheusSample[]> {
  const counters = (samples: readonly PrometheusSample[]) =>
    JSON.stringify(samples.filter((s) => s.name.endsWith("_total") || s.name.endsWith("_count")));
  let previous = await scrapePrometheus(metricsUrl());
  for (let round = 0; round < 10; round++) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = await scrapePrometheus(metricsUrl());
    if (counters(now) === counters(previous)) return now;
    previous = now;
  }
  throw new Error(`the exported counters kept changing for ${(10 * quietMs) / 1000} s`);
}

describe("metrics of the platform, exported over OTLP (Jaeger's Prometheus endpoint)", function () {
  this.timeout(120_000);
  let baseline: PrometheusSample[];
  let after: PrometheusSample[];

  before(async () => {
    baseline = await settledScrape();
    const customer = await registeredUser("metered");
    const productId = await createdProduct({ price: 30, stock: 10 });
    const placed = await api("POST", "/api/orders", {
      token: customer.token,
      body: { items: [{ productId, quantity: 1 }] },
    });
    expect(placed.status, placed.text).to.equal(201);
    const orderId = (placed.body as { orderId: string }).orderId;
    const refused = await api("POST", "/api/orders", {
      token: customer.token,
      body: { items: [{ productId: "no-such-product", quantity: 1 }] },
    });
    expect(refused.status, refused.text).to.equal(404);
    const opened = await api("POST", "/api/payments/create", {
      token: customer.token,
      body: { orderId, amount: 30 },
    });
    expect(opened.status, opened.text).to.equal(200);
    const body = callbackBody((opened.body as { providerOrderId: string }).providerOrderId, "paid");
    const captured = await api("POST", "/api/payments/callback", {
      rawBody: body,
      headers: { "content-type": "application/json", "x-payment-signature": webhookSignature(body) },
    });
    expect(captured.status, captured.text).to.equal(200);
    await pollUntil(`order ${orderId} CONFIRMED`, async () =>
      (await orderStatus(customer.token, orderId)) === "CONFIRMED" ? true : undefined,
    );
    // Every service (each replica) exports on its own clock, every 2 s in npm test
    // (OTEL_METRIC_EXPORT_INTERVAL): wait until each process of the flow has exported what it
    // counted, then take the scrape the tests read.
    const counted: readonly [string, Readonly<Record<string, string>>][] = [
      ["commerce_orders_placed_total", { job: "commerce-order" }],
      ["commerce_payments_total", { job: "commerce-payment", payment_status: "CREATED" }],
      ["commerce_payments_total", { job: "commerce-payment", payment_status: "SUCCESS" }],
      [rpcCount, { ...placeOrder, error_type: "NOT_FOUND" }],
      [rpcCount, { job: "commerce-product", rpc_method: "ReserveStock" }],
      ["messaging_process_duration_seconds_count", orderEventsAtNotification],
      ["messaging_process_duration_seconds_count", paymentEventsAtOrder],
    ];
    after = await pollUntil(
      "every counter of the flow in the exported metrics",
      async () => {
        const now = await scrapePrometheus(metricsUrl());
        const exported =
          placeOrderOk(now) > placeOrderOk(baseline) &&
          counted.every(([name, labels]) => sumOf(now, name, labels) > sumOf(baseline, name, labels));
        return exported ? now : undefined;
      },
      30_000,
    );
  });

  const delta = (name: string, labels: Readonly<Record<string, string>>): number =>
    sumOf(after, name, labels) - sumOf(baseline, name, labels);

  it("counts the order placed and the payment's statuses (commerce_orders_placed_total, commerce_payments_total)", () => {
    expect(delta("commerce_orders_placed_total", { job: "commerce-order" })).to.equal(1);
    expect(delta("commerce_payments_total", { job: "commerce-payment", payment_status: "CREATED" })).to.equal(
      1,
    );
    expect(delta("commerce_payments_total", { job: "commerce-payment", payment_status: "SUCCESS" })).to.equal(
      1,
    );
    expect(delta("commerce_payments_total", { job: "commerce-payment", payment_status: "FAILED" })).to.equal(
      0,
    );
  });

  it("measures every RPC on its server: requests, errors by type, and the duration histogram", () => {
    expect(placeOrderOk(after) - placeOrderOk(baseline), "PlaceOrder answered OK").to.equal(1);
    expect(delta(rpcCount, { ...placeOrder, error_type: "NOT_FOUND" }), "PlaceOrder refused").to.equal(1);
    const refused = after.find(
      (s) =>
        s.name === rpcCount &&
        s.labels["rpc_method"] === "PlaceOrder" &&
        s.labels["error_type"] === "NOT_FOUND",
    );
    // Envoy calls the services over gRPC: the status code is gRPC's (5, NOT_FOUND).
    expect(refused?.labels).to.include({ rpc_system: "grpc", rpc_grpc_status_code: "5" });
    const buckets = after.filter(
      (s) => s.name === "rpc_server_call_duration_seconds_bucket" && s.labels["rpc_method"] === "PlaceOrder",
    );
    expect(buckets.map((s) => s.labels["le"])).to.include.members(["0.005", "10", "+Inf"]);
    expect(delta("rpc_server_call_duration_seconds_sum", placeOrder)).to.be.greaterThan(0);
    // The peer's side of the call: the Product service measured the reservation it served.
    expect(
      delta(rpcCount, { job: "commerce-product", rpc_method: "ReserveStock" }),
      "ReserveStock served by Product",
    ).to.be.at.least(1);
  });

  it("measures the consumers: records processed and their processing time, per consumer group", () => {
    // At least once: the relays of two Order replicas may both publish an event.
    expect(delta("messaging_client_consumed_messages_total", orderEventsAtNotification)).to.be.at.least(1);
    expect(delta("messaging_process_duration_seconds_count", orderEventsAtNotification)).to.be.at.least(1);
    expect(
      delta("messaging_process_duration_seconds_count", paymentEventsAtOrder),
      "the Order service consumed the payment's events",
    ).to.be.at.least(1);
  });

  it("reports each consumer group's lag per partition, and the outbox backlog per service, back to zero once the flow settled", async () => {
    const settled = await pollUntil(
      "every lag of notification-service on order-events and the Order outbox at zero",
      async () => {
        const now = await scrapePrometheus(metricsUrl());
        const lags = now.filter(
          (s) =>
            s.name === "commerce_messaging_consumer_lag" &&
            s.labels["messaging_consumer_group_name"] === "notification-service" &&
            s.labels["messaging_destination_name"] === "order-events",
        );
        const backlog = now.filter(
          (s) => s.name === "commerce_outbox_backlog" && s.labels["job"] === "commerce-order",
        );
        return lags.length > 0 && backlog.length > 0 && [...lags, ...backlog].every((s) => s.value === 0)
          ? { lags, backlog }
          : undefined;
      },
      30_000,
    );
    const partitions = new Set(settled.lags.map((s) => s.labels["messaging_destination_partition_id"]));
    expect(partitions.size, "one series per partition").to.be.greaterThan(1);
    expect(settled.lags.every((s) => s.labels["job"] === "commerce-notification")).to.equal(true);
    expect(settled.backlog.map((s) => s.labels["job"])).to.deep.equal(
      settled.backlog.map(() => "commerce-order"),
    );
  });
});
