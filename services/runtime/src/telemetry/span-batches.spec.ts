import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { EnvReader } from "../config/env-reader.js";
import type { Logger } from "../logging/logger.js";
import { capturedLogger } from "../testing/captured-logger.js";
import { eventually } from "../testing/eventually.js";
import { startTelemetry, type Telemetry } from "./telemetry.js";
import { readTelemetrySettings } from "./telemetry-settings.js";

interface Receiver {
  readonly url: string;
  /** Exports answered so far. */
  exports(): number;
  /** From now on, exports wait for `release()`, or are refused with a 500. */
  hold(): void;
  refuse(): void;
  release(): void;
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver on loopback that counts the exports it answers. */
async function receiver(): Promise<Receiver> {
  let exports = 0;
  let mode: "answer" | "hold" | "refuse" = "answer";
  const held: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = (): void => {
        if (req.method === "POST" && req.url === "/v1/traces") exports += 1;
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      };
      if (mode === "refuse") res.writeHead(500).end();
      else if (mode === "hold") held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    hold: () => {
      mode = "hold";
    },
    refuse: () => {
      mode = "refuse";
    },
    release: () => {
      mode = "answer";
      for (const answer of held.splice(0)) answer();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** pino's numeric levels. */
const warn = 40;
const error = 50;

/** The lines the SDK's diagnostic logger wrote at `level`. */
const sdkLines = (lines: readonly Record<string, unknown>[], level: number) =>
  lines.filter((line) => line["component"] === "opentelemetry" && line["level"] === level);

describe("span batches from OTEL_BSP_*, and the SDK's problems in the log", () => {
  let otlp: Receiver;
  let telemetry: Telemetry | undefined;

  beforeEach(async () => {
    otlp = await receiver();
  });

  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = undefined;
    await otlp.close();
  });

  const start = (bsp: Record<string, string>, logger?: Logger): Telemetry => {
    const env = new EnvReader({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_METRICS_EXPORTER: "none",
      ...bsp,
    });
    const settings = env.finish(readTelemetrySettings(env));
    telemetry = startTelemetry(settings, {
      singleService: true,
      ...(logger === undefined ? {} : { logger }),
    });
    return telemetry;
  };

  it("exports a lone span after OTEL_BSP_SCHEDULE_DELAY, not the default 5 s", async () => {
    const { tracer } = start({ OTEL_BSP_SCHEDULE_DELAY: "100" }).forService("product");
    tracer.startSpan("lone").end();
    await eventually(() => otlp.exports() === 1 || undefined, 2_000, "one export");
  });

  it("exports as soon as OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans have ended, and holds fewer", async () => {
    const { tracer } = start({
      OTEL_BSP_SCHEDULE_DELAY: "60000",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "2",
    }).forService("product");
    tracer.startSpan("first").end();
    await delay(300);
    expect(otlp.exports()).to.equal(0);
    tracer.startSpan("second").end();
    await eventually(() => otlp.exports() === 1 || undefined, 2_000, "one export");
  });

  it("logs an export the collector refused, as an error of the opentelemetry component", async () => {
    const log = capturedLogger();
    otlp.refuse();
    const { tracer } = start({ OTEL_BSP_SCHEDULE_DELAY: "50" }, log.logger).forService("product");
    tracer.startSpan("refused").end();
    await eventually(() => sdkLines(log.lines, error).length > 0 || undefined, 5_000, "an error line");
  });

  it("logs the spans dropped from a full queue, as a warning with their number", async () => {
    const log = capturedLogger();
    const { tracer } = start(
      { OTEL_BSP_SCHEDULE_DELAY: "60000", OTEL_BSP_MAX_QUEUE_SIZE: "1", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1" },
      log.logger,
    ).forService("product");
    otlp.hold();
    tracer.startSpan("exported while held").end(); // a full batch: its export starts, and waits
    tracer.startSpan("queued").end(); // the one place in the queue
    tracer.startSpan("dropped").end(); // no room
    otlp.release();
    await eventually(() => otlp.exports() === 2 || undefined, 5_000, "two exports");
    tracer.startSpan("after").end(); // the processor reports what it dropped when room returns
    const warnings = sdkLines(log.lines, warn).map((line) => line["msg"]);
    expect(warnings).to.deep.equal(["Dropped 1 spans because maxQueueSize reached"]);
  });
});
