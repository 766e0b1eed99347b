import { expect } from "chai";
import { edgeOtlpExport } from "./cluster.js";

describe("the multi-process topology's Envoy tracer", () => {
  it("traces into OTEL_EXPORTER_OTLP_ENDPOINT when the services get one", () => {
    expect(edgeOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).to.deep.equal({
      tracesUrl: "http://127.0.0.1:4318/v1/traces",
      address: { host: "127.0.0.1", port: 4318 },
    });
  });

  it("does not trace without an endpoint, or when OTEL_SDK_DISABLED says so", () => {
    expect(edgeOtlpExport({})).to.equal(undefined);
    expect(edgeOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).to.equal(undefined);
    expect(
      edgeOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }),
    ).to.equal(undefined);
  });
});
