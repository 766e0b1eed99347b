import { expect } from "chai";
import { edgeOtlpExport } from "./cluster.js";

describe("the multi-process topology's Envoy tracer", () => {
  it("traces into OTEL_EXPORTER_OTLP_ENDPOINT when the services get one", () => {
    expect(edgeOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).to.deep.equal({
      tracesUrl: "http://127.0.0.1:4318/v1/traces",
      address: { host: "127.0.0.1", port: 4318 },
      samplePercent: 100,
    });
  });

  it("samples new requests at the services' ratio, none when they sample nothing", () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
    const percentOf = (sampler: Record<string, string>) =>
      edgeOtlpExport({ ...endpoint, ...sampler })?.samplePercent;
    expect(
      percentOf({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }),
    ).to.equal(10);
    expect(percentOf({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" })).to.equal(25);
    expect(percentOf({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio" })).to.equal(100);
    expect(percentOf({ OTEL_TRACES_SAMPLER: "parentbased_always_off" })).to.equal(0);
    expect(percentOf({ OTEL_TRACES_SAMPLER: "always_on" })).to.equal(100);
    expect(percentOf({})).to.equal(100);
  });

  it("does not trace without an endpoint, or when OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER says so", () => {
    expect(edgeOtlpExport({})).to.equal(undefined);
    expect(edgeOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).to.equal(undefined);
    expect(
      edgeOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }),
    ).to.equal(undefined);
    expect(
      edgeOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).to.equal(undefined);
  });
});
