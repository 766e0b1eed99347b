import { expect } from "chai";
import { StoreUnavailableError } from "../store/document-store.js";
import {
  BlockedPartitions,
  type BlockedPartitionsOptions,
  type FailedDelivery,
} from "./blocked-partitions.js";

interface Line {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function recordingLogger() {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, message: string) => {
    lines.push({ level, fields: fields as Record<string, unknown>, message });
  };
  return { lines, info: at("info"), warn: at("warn"), error: at("error") };
}

const outage = (partition = 1): FailedDelivery => ({
  topic: "payment-events",
  partition,
  offset: "41",
  id: "evt-41",
  count: 1,
  error: new StoreUnavailableError(new Error("connect ECONNREFUSED 127.0.0.1:27017")),
});

/** The Order service's partitions on Kafka, paced by `backoff` (no jitter unless it says). */
function orderPartitions(
  logger: ReturnType<typeof recordingLogger>,
  backoff: Partial<BlockedPartitionsOptions["backoff"]> = {},
  random?: () => number,
): BlockedPartitions {
  return new BlockedPartitions({
    group: "order-service",
    bus: "kafka bus",
    logger,
    backoff: { initialMs: 100, maxMs: 1_000, jitter: "none", ...backoff },
    ...(random === undefined ? {} : { random }),
  });
}

describe("BlockedPartitions", () => {
  it("pauses longer after each failure in a row, up to the cap, and never gives up", () => {
    const blocked = orderPartitions(recordingLogger(), { jitter: "equal" }, () => 0.999999);
    const pauses = Array.from({ length: 40 }, () => blocked.failed(outage()));

    expect(pauses.slice(0, 6)).to.deep.equal([100, 200, 400, 800, 1_000, 1_000]);
    expect(pauses.every((pause) => pause <= 1_000)).to.equal(true);
    expect(blocked.list().map((b) => b.failures)).to.deep.equal([40]);
  });

  it("tells which partition is blocked since when, and logs each failure with both", () => {
    const logger = recordingLogger();
    const blocked = orderPartitions(logger);
    const before = Date.now();
    blocked.failed(outage());
    blocked.failed(outage());
    const [only, ...others] = blocked.list();

    expect(others).to.deep.equal([]);
    expect(only).to.deep.include({
      topic: "payment-events",
      partition: 1,
      failures: 2,
      errorType: "StoreUnavailableError",
    });
    expect(only?.since.getTime()).to.be.within(before, Date.now());
    expect(logger.lines.map((line) => [line.level, line.message])).to.deep.equal([
      [
        "warn",
        "kafka bus: partition blocked: the handler failed, the same record is delivered again after a pause",
      ],
      [
        "warn",
        "kafka bus: partition blocked: the handler failed, the same record is delivered again after a pause",
      ],
    ]);
    expect(logger.lines[1]?.fields).to.deep.include({
      group: "order-service",
      topic: "payment-events",
      partition: 1,
      offset: "41",
      id: "evt-41",
      failures: 2,
      retryInMs: 200,
      blockedSince: only?.since.toISOString(),
      failure: "infrastructure",
    });
  });

  it("logs a failure that is not the infrastructure's as an error: someone has to fix it", () => {
    const logger = recordingLogger();
    const blocked = new BlockedPartitions({
      group: "notification-service",
      bus: "embedded bus",
      logger,
      backoff: { initialMs: 10, maxMs: 10, jitter: "none" },
    });
    blocked.failed({ ...outage(0), count: 3, error: new TypeError("x is undefined") });

    expect(logger.lines.map((line) => [line.level, line.fields["failure"], line.message])).to.deep.equal([
      [
        "error",
        "unexpected",
        "embedded bus: partition blocked: the handler failed, the same batch is delivered again after a pause",
      ],
    ]);
  });

  it("forgets a partition once its record went through, logging how long it was blocked, and starts over after", () => {
    const logger = recordingLogger();
    const blocked = orderPartitions(logger);
    blocked.failed(outage());
    blocked.failed(outage());
    blocked.handled("payment-events", 0);
    expect(blocked.list()).to.have.length(1);
    blocked.handled("payment-events", 1);

    expect(blocked.list()).to.deep.equal([]);
    const unblocked = logger.lines.at(-1);
    expect(unblocked?.level).to.equal("info");
    expect(unblocked?.message).to.equal("kafka bus: partition unblocked: the record went through");
    expect(unblocked?.fields).to.deep.include({ group: "order-service", partition: 1, failures: 2 });
    expect(blocked.failed(outage())).to.equal(100);
  });

  it("forgets the partitions a rebalance took away", () => {
    const blocked = orderPartitions(recordingLogger());
    blocked.failed(outage(0));
    blocked.failed(outage(2));
    blocked.keepOnly((topic, partition) => topic === "payment-events" && partition === 2);

    expect(blocked.list().map((b) => b.partition)).to.deep.equal([2]);
  });
});
