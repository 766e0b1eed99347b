import { expect } from "chai";
import { createRequire } from "node:module";
import { correctKafkaJsRequestQueue } from "./kafkajs-request-queue.js";

/** KafkaJS's request queue, as its connections make one, with what the checks below read. */
interface RequestQueue {
  pending: unknown[];
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  destroy(): void;
}

const RequestQueue = createRequire(import.meta.url)("kafkajs/src/network/requestQueue/index.js") as new (
  options: object,
) => RequestQueue;

const quiet = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

function newQueue(): RequestQueue {
  return new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: "spec",
    broker: "127.0.0.1:9092",
    logger: quiet,
  });
}

describe("correctKafkaJsRequestQueue", () => {
  let queue: RequestQueue;
  before(correctKafkaJsRequestQueue);
  afterEach(() => queue.destroy());

  it("arms no timer once the queue has looked and no request waits (KafkaJS looks again every millisecond)", () => {
    queue = newQueue();
    queue.checkPendingRequests(); // what every completed request does
    expect(queue.throttleCheckTimeoutId).to.equal(null);
  });

  it("still arms one while a request waits", () => {
    queue = newQueue();
    queue.pending.push({});
    queue.scheduleCheckPendingRequests();
    expect(queue.throttleCheckTimeoutId).to.not.equal(null);
  });
});
