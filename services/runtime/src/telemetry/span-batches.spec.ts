import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EnvReader } from "../config/env-reader.js";
import { startTelemetry, type Telemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

/** An OTLP/HTTP receiver on loopback that counts the exports it is sent. */
async function receiver(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") exports += 1;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await settle(20);
  }
  return true;
}

describe("span batches from OTEL_BSP_*", () => {
  let otlp: Awaited<ReturnType<typeof receiver>>;
  let telemetry: Telemetry | undefined;

  beforeEach(async () => {
    otlp = await receiver();
  });

  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = undefined;
    await otlp.close();
  });

  const start = (bsp: Record<string, string>): Telemetry => {
    const env = new EnvReader({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_METRICS_EXPORTER: "none",
      ...bsp,
    });
    telemetry = startTelemetry(env.finish(readTelemetrySettings(env)), { singleService: true });
    return telemetry;
  };

  it("exports a lone span after OTEL_BSP_SCHEDULE_DELAY, not the default 5 s", async () => {
    const { tracer } = start({ OTEL_BSP_SCHEDULE_DELAY: "100" }).forService("product");
    tracer.startSpan("lone").end();
    expect(await until(() => otlp.exports() === 1, 2_000)).to.equal(true);
  });

  it("exports as soon as OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans have ended, and holds fewer", async () => {
    const { tracer } = start({
      OTEL_BSP_SCHEDULE_DELAY: "60000",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2",
    }).forService("product");
    tracer.startSpan("first").end();
    await settle(300);
    expect(otlp.exports()).to.equal(0);
    tracer.startSpan("second").end();
    expect(await until(() => otlp.exports() === 1, 2_000)).to.equal(true);
  });
});
