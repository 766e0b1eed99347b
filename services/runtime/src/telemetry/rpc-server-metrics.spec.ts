import { Code, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createNoopMeter } from "@opentelemetry/api";
import { expect } from "chai";
import { EnvReader, type Env } from "../config/env-reader.js";
import { createMetricsProbe, type MetricsProbe } from "../testing/metrics-probe.js";
import { codeOf } from "../testing/service-harness.js";
import { tracedProductHost } from "../testing/traced-product-host.js";
import { ProductService } from "../../gen/commerce/product/v1/product_pb.js";
import { noTelemetry, startTelemetry, type Telemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

function telemetryOf(env: Env, probe: MetricsProbe): Telemetry {
  return startTelemetry(readTelemetrySettings(new EnvReader(env)), {
    singleService: false,
    metricReader: probe.readerFor,
  });
}

const getProduct = {
  "rpc.service": "commerce.product.v1.ProductService",
  "rpc.method": "GetProduct",
};

describe("RPC server metrics", () => {
  const probe = createMetricsProbe();
  // Metrics on, tracing off: the two signals are independent.
  const telemetry = telemetryOf({ OTEL_METRICS_EXPORTER: "otlp", OTEL_TRACES_EXPORTER: "none" }, probe);
  const host = tracedProductHost(telemetry);

  after(async () => {
    await host.close(100);
    await telemetry.shutdown();
  });

  it("records every call's duration in rpc.server.call.duration (s), by method and outcome", async () => {
    expect(telemetry.forService("product").enabled, "tracing").to.equal(false);
    const port = await host.listen(0, "127.0.0.1");
    const inProcess = createClient(ProductService, host.transport);
    const network = createClient(
      ProductService,
      createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` }),
    );
    await inProcess.getProduct({ productId: "p1" });
    await inProcess.getProduct({ productId: "p2" });
    expect(await codeOf(inProcess.getProduct({ productId: "missing" }))).to.equal(Code.NotFound);
    expect(await codeOf(inProcess.getProduct({ productId: "boom" }))).to.equal(Code.Internal);
    await network.getProduct({ productId: "p1" });
    expect(await codeOf(network.getProduct({ productId: "missing" }))).to.equal(Code.NotFound);

    const metric = await probe.metric("commerce-product", "rpc.server.call.duration");
    expect(metric?.unit).to.equal("s");
    const points = metric?.points ?? [];
    const counts = points.map((point) => ({
      attributes: point.attributes,
      count: typeof point.value === "number" ? point.value : point.value.count,
    }));
    expect(counts).to.have.deep.members([
      { attributes: { "rpc.system": "connect_rpc", ...getProduct }, count: 2 },
      {
        attributes: {
          "rpc.system": "connect_rpc",
          ...getProduct,
          "rpc.connect_rpc.error_code": "not_found",
          "error.type": "NOT_FOUND",
        },
        count: 1,
      },
      {
        attributes: {
          "rpc.system": "connect_rpc",
          ...getProduct,
          "rpc.connect_rpc.error_code": "internal",
          "error.type": "INTERNAL",
        },
        count: 1,
      },
      { attributes: { "rpc.system": "grpc", ...getProduct, "rpc.grpc.status_code": 0 }, count: 1 },
      {
        attributes: {
          "rpc.system": "grpc",
          ...getProduct,
          "rpc.grpc.status_code": Code.NotFound,
          "error.type": "NOT_FOUND",
        },
        count: 1,
      },
    ]);
    for (const point of points) {
      const sum = typeof point.value === "number" ? point.value : point.value.sum;
      // Seconds, not milliseconds: a call in memory takes well under one.
      expect(sum).to.be.greaterThan(0).and.lessThan(2);
    }
  });
});

describe("metrics off", () => {
  it("starts no meter provider: the services' meter is the API's no-op meter", async () => {
    const probe = createMetricsProbe();
    const tracingOnly = telemetryOf({ OTEL_TRACES_EXPORTER: "otlp", OTEL_METRICS_EXPORTER: "none" }, probe);
    const service = tracingOnly.forService("product");
    expect(service.enabled).to.equal(true);
    expect(service.metered).to.equal(false);
    expect(service.meter).to.deep.equal(createNoopMeter());
    await tracingOnly.shutdown();
    // No reader was asked for: no provider exists.
    const failure = await probe.metric("commerce-product", "rpc.server.call.duration").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure)
      .to.be.instanceOf(Error)
      .with.property("message", "no meter provider for commerce-product");
    expect(noTelemetry.forService("product").metered).to.equal(false);
  });
});
