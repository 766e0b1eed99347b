/**
 * The services' metrics reach the real OTLP backend: the runtime's periodic OTLP/HTTP export
 * (protobuf) into a private Jaeger v2, read back from its Prometheus endpoint, under the names
 * Prometheus gives them (dots to underscores, `_seconds` and `_total` suffixes, `{…}` units
 * dropped; `job` is the service's `service.name`).
 */
import { createClient } from "@connectrpc/connect";
import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EnvReader } from "@commerce/runtime/config";
import { startTelemetry, readTelemetrySettings } from "@commerce/runtime/telemetry";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { createOrderMetrics } from "@commerce/order";
import { tracedProductHost } from "@commerce/runtime/testing";
import { waitUntil } from "./processes.js";
import { startJaeger, type JaegerInstance } from "./jaeger.js";

describe("metrics exported over OTLP to Jaeger", function () {
  // A cold cache builds Jaeger first (minutes on two cores).
  this.timeout(30 * 60_000);
  let scratch: string;
  let jaeger: JaegerInstance;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "otlp-metrics-spec-"));
    jaeger = await startJaeger({ dataDir: join(scratch, "jaeger") });
  });
  after(async () => {
    await jaeger.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("exports RPC durations and business counters every OTEL_METRIC_EXPORT_INTERVAL, under the services' names", async function () {
    this.timeout(30_000);
    const settings = new EnvReader({
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpEndpoint,
      OTEL_TRACES_EXPORTER: "none",
      OTEL_METRIC_EXPORT_INTERVAL: "300",
    });
    const telemetry = startTelemetry(settings.finish(readTelemetrySettings(settings)), {
      singleService: false,
    });
    const host = tracedProductHost(telemetry);
    try {
      const products = createClient(ProductService, host.transport);
      await products.getProduct({ productId: "p1" });
      await products.getProduct({ productId: "p2" });
      await products.getProduct({ productId: "missing" }).catch(() => undefined);
      const orders = createOrderMetrics(telemetry.forService("order").meter);
      orders.orderPlaced();
      orders.orderPlaced();
      orders.orderPlaced();

      let text = "";
      const complete = await waitUntil(
        async () => {
          text = await (await fetch(jaeger.metricsUrl)).text();
          return (
            text.includes("commerce_orders_placed_total{") &&
            text.includes("rpc_server_call_duration_seconds_count{")
          );
        },
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      expect(complete, text).to.equal(true);
      const samples = text.split("\n").filter((line) => !line.startsWith("#") && line !== "");
      const placed = samples.filter((line) => line.startsWith("commerce_orders_placed_total{"));
      expect(placed, text).to.have.length(1);
      expect(placed[0]).to.match(/\bjob="commerce-order"/);
      expect(placed[0]).to.match(/ 3$/);
      const counts = samples.filter((line) => line.startsWith("rpc_server_call_duration_seconds_count{"));
      expect(counts, text).to.have.length(2);
      const ok = counts.find((line) => !line.includes("error_type="));
      const refused = counts.find((line) => line.includes('error_type="NOT_FOUND"'));
      for (const line of [ok, refused]) {
        expect(line).to.match(/\bjob="commerce-product"/);
        expect(line).to.match(/\brpc_system="connect_rpc"/);
        expect(line).to.match(/\brpc_service="commerce\.product\.v1\.ProductService"/);
        expect(line).to.match(/\brpc_method="GetProduct"/);
      }
      expect(ok).to.match(/ 2$/);
      expect(refused).to.match(/\brpc_connect_rpc_error_code="not_found"/);
      expect(refused).to.match(/ 1$/);
      expect(
        samples.some(
          (line) =>
            line.startsWith("rpc_server_call_duration_seconds_bucket{") && line.includes('le="0.005"'),
        ),
      ).to.equal(true);
    } finally {
      await host.close(100);
      await telemetry.shutdown();
    }
  });
});
