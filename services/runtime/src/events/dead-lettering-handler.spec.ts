import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { createDeadLetterPublisher } from "./dead-letter-publisher.js";
import { createEmbeddedBus } from "./embedded-bus.js";
import type { EventBus, EventRecord, RecordBatch } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import { PermanentEventError } from "./permanent-event-error.js";
import { withBatchRetries, withRetries } from "./retrying-handler.js";

const record: EventRecord = {
  id: "evt-1",
  type: "ORDER_PLACED",
  source: "/commerce/order",
  time: "2024-05-01T10:00:00.000Z",
  subject: "order-1",
  topic: "order-events",
  data: '{"orderId":"order-1"}',
};

const silent: EventLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A handler that fails its first `failures` calls with the given errors, then succeeds. */
function flaky(...errors: Error[]): {
  calls: number;
  handler: (r: EventRecord, s: AbortSignal) => Promise<void>;
} {
  const state = {
    calls: 0,
    handler: (): Promise<void> => {
      const error = errors[state.calls];
      state.calls += 1;
      return error === undefined ? Promise.resolve() : Promise.reject(error);
    },
  };
  return state;
}

describe("withRetries", () => {
  it("retries a failing handler and resolves once it succeeds, without dead-lettering", async () => {
    const target = flaky(new Error("first"), new Error("second"));
    const parked: unknown[] = [];
    const handler = withRetries(target.handler, {
      attempts: 3,
      baseDelayMs: 1,
      maxDelayMs: 2,
      deadLetter: (r, error) => {
        parked.push([r, error]);
        return Promise.resolve();
      },
    });

    await handler(record, new AbortController().signal);

    expect(target.calls).to.equal(3);
    expect(parked).to.deep.equal([]);
  });

  it("hands the record and the last error to deadLetter after the last attempt, then resolves", async () => {
    const last = new Error("third");
    const target = flaky(new Error("first"), new Error("second"), last, new Error("never reached"));
    const parked: [EventRecord, unknown][] = [];
    const warnings: object[] = [];
    const handler = withRetries(target.handler, {
      attempts: 3,
      baseDelayMs: 1,
      maxDelayMs: 2,
      random: () => 0,
      logger: { ...silent, warn: (fields) => warnings.push(fields) },
      deadLetter: (r, error) => {
        parked.push([r, error]);
        return Promise.resolve();
      },
    });

    await handler(record, new AbortController().signal);

    expect(target.calls).to.equal(3);
    expect(parked).to.have.length(1);
    expect(parked[0]![0]).to.equal(record);
    expect(parked[0]![1]).to.equal(last);
    expect(warnings.map((fields) => ({ ...fields, err: undefined }))).to.deep.equal([
      { err: undefined, id: "evt-1", type: "ORDER_PLACED", topic: "order-events", attempt: 1, retryInMs: 1 },
      { err: undefined, id: "evt-1", type: "ORDER_PLACED", topic: "order-events", attempt: 2, retryInMs: 1 },
    ]);
  });

  it("dead-letters a PermanentEventError at once, without retrying", async () => {
    const permanent = new PermanentEventError("unreadable data");
    const target = flaky(permanent);
    const parked: unknown[] = [];
    const handler = withRetries(target.handler, {
      attempts: 5,
      baseDelayMs: 10_000,
      maxDelayMs: 10_000,
      deadLetter: (_r, error) => {
        parked.push(error);
        return Promise.resolve();
      },
    });

    await handler(record, new AbortController().signal);

    expect(target.calls).to.equal(1);
    expect(parked).to.deep.equal([permanent]);
  });

  it("stops at once when the signal aborts during a backoff, rejecting without dead-lettering", async () => {
    const target = flaky(new Error("down"), new Error("down"));
    const parked: unknown[] = [];
    const handler = withRetries(target.handler, {
      attempts: 5,
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
      deadLetter: (_r, error) => {
        parked.push(error);
        return Promise.resolve();
      },
    });
    const controller = new AbortController();
    const started = performance.now();
    const outcome = handler(record, controller.signal).then(
      () => "resolved",
      (error: unknown) => error,
    );
    const deadline = Date.now() + 5000;
    while (target.calls < 1 && Date.now() < deadline) await delay(1);
    const reason = new Error("closing");
    controller.abort(reason);

    expect(await outcome).to.equal(reason);
    // The backoff was a minute: returning well before it proves the abort cut the wait short.
    expect(performance.now() - started).to.be.below(10_000);
    expect(target.calls).to.equal(1);
    expect(parked).to.deep.equal([]);
  });

  it("rejects when deadLetter rejects, so the bus redelivers instead of losing the record", async () => {
    const target = flaky(new Error("down"));
    const handler = withRetries(target.handler, {
      attempts: 1,
      baseDelayMs: 1,
      maxDelayMs: 1,
      deadLetter: () => Promise.reject(new Error("dead-letter topic unavailable")),
    });

    let message: string | undefined;
    try {
      await handler(record, new AbortController().signal);
    } catch (error) {
      message = (error as Error).message;
    }

    expect(message).to.equal("dead-letter topic unavailable");
  });

  it("refuses nonsensical settings", () => {
    const deadLetter = (): Promise<void> => Promise.resolve();
    const noop = (): Promise<void> => Promise.resolve();
    expect(() => withRetries(noop, { attempts: 0, baseDelayMs: 1, maxDelayMs: 1, deadLetter })).to.throw(
      RangeError,
      "attempts must be a positive integer, got 0",
    );
    expect(() => withRetries(noop, { attempts: 1, baseDelayMs: 5, maxDelayMs: 1, deadLetter })).to.throw(
      RangeError,
      "need 0 <= baseDelayMs <= maxDelayMs, got 5 and 1",
    );
  });
});

describe("withBatchRetries", () => {
  const batchOf = (...ns: number[]): RecordBatch => ({
    topic: "order-events",
    partition: 2,
    records: ns.map((n) => ({ ...record, id: `evt-${n}` })),
  });
  const idsOf = (batch: RecordBatch): string[] => batch.records.map((r) => r.id);

  it("retries a failing batch whole and resolves once it succeeds, without dead-lettering", async () => {
    const calls: string[][] = [];
    const parked: string[] = [];
    const handler = withBatchRetries(
      (batch) => {
        calls.push(idsOf(batch));
        return calls.length < 3 ? Promise.reject(new Error("transient")) : Promise.resolve();
      },
      {
        attempts: 3,
        baseDelayMs: 1,
        maxDelayMs: 2,
        deadLetter: (r) => {
          parked.push(r.id);
          return Promise.resolve();
        },
      },
    );

    await handler(batchOf(1, 2, 3), new AbortController().signal);

    expect(calls).to.deep.equal([
      ["evt-1", "evt-2", "evt-3"],
      ["evt-1", "evt-2", "evt-3"],
      ["evt-1", "evt-2", "evt-3"],
    ]);
    expect(parked).to.deep.equal([]);
  });

  it("after the last attempt hands the records over one at a time and dead-letters only the one that fails alone", async () => {
    const calls: RecordBatch[] = [];
    const parked: [string, unknown][] = [];
    const poison = new Error("cannot project evt-2");
    const handler = withBatchRetries(
      (batch) => {
        calls.push(batch);
        return idsOf(batch).includes("evt-2") ? Promise.reject(poison) : Promise.resolve();
      },
      {
        attempts: 2,
        baseDelayMs: 1,
        maxDelayMs: 2,
        deadLetter: (r, error) => {
          parked.push([r.id, error]);
          return Promise.resolve();
        },
      },
    );

    await handler(batchOf(1, 2, 3), new AbortController().signal);

    expect(calls.map(idsOf)).to.deep.equal([
      ["evt-1", "evt-2", "evt-3"],
      ["evt-1", "evt-2", "evt-3"],
      ["evt-1"],
      ["evt-2"],
      ["evt-2"],
      ["evt-3"],
    ]);
    expect(calls.every((batch) => batch.topic === "order-events" && batch.partition === 2)).to.equal(true);
    expect(parked).to.deep.equal([["evt-2", poison]]);
  });

  it("splits a batch at once on a PermanentEventError, and dead-letters a single record at once on one", async () => {
    const calls: string[][] = [];
    const parked: string[] = [];
    const handler = withBatchRetries(
      (batch) => {
        calls.push(idsOf(batch));
        return idsOf(batch).includes("evt-1")
          ? Promise.reject(new PermanentEventError("unreadable evt-1"))
          : Promise.resolve();
      },
      {
        attempts: 5,
        baseDelayMs: 10_000,
        maxDelayMs: 10_000,
        deadLetter: (r) => {
          parked.push(r.id);
          return Promise.resolve();
        },
      },
    );

    await handler(batchOf(1, 2), new AbortController().signal);

    expect(calls).to.deep.equal([["evt-1", "evt-2"], ["evt-1"], ["evt-2"]]);
    expect(parked).to.deep.equal(["evt-1"]);
  });

  it("rejects without dead-lettering when the signal aborts, so the bus redelivers the batch", async () => {
    const controller = new AbortController();
    const parked: string[] = [];
    const handler = withBatchRetries(
      () => {
        controller.abort(new Error("subscription closed"));
        return Promise.reject(new Error("interrupted"));
      },
      {
        attempts: 3,
        baseDelayMs: 1,
        maxDelayMs: 2,
        deadLetter: (r) => {
          parked.push(r.id);
          return Promise.resolve();
        },
      },
    );

    let error: unknown;
    try {
      await handler(batchOf(1, 2), controller.signal);
    } catch (caught) {
      error = caught;
    }

    expect((error as Error | undefined)?.message).to.equal("subscription closed");
    expect(parked).to.deep.equal([]);
  });
});

describe("createDeadLetterPublisher with withRetries on the embedded bus", () => {
  let dataDir: string;
  let bus: EventBus;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "dead-letter-"));
    bus = await createEmbeddedBus({ dataDir, logger: silent, redeliveryDelayMs: 10 });
  });

  afterEach(async () => {
    await bus.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("parks a record that keeps failing in <group>.dead-letter and moves on to the next one", async () => {
    const handled: string[] = [];
    await bus.subscribe({
      group: "notification",
      topics: ["order-events"],
      handler: withRetries(
        (r) => {
          if (r.id === "evt-1") return Promise.reject(new Error("template missing"));
          handled.push(r.id);
          return Promise.resolve();
        },
        {
          attempts: 2,
          baseDelayMs: 1,
          maxDelayMs: 2,
          deadLetter: createDeadLetterPublisher(bus, "notification"),
        },
      ),
    });
    const parked: EventRecord[] = [];
    await bus.subscribe({
      group: "operator",
      topics: ["notification.dead-letter"],
      handler: (r) => {
        parked.push(r);
        return Promise.resolve();
      },
    });
    await bus.publish([record, { ...record, id: "evt-2" }]);
    const deadline = Date.now() + 5000;
    while ((handled.length < 1 || parked.length < 1) && Date.now() < deadline) await delay(5);

    expect(handled).to.deep.equal(["evt-2"]);
    expect(parked).to.have.length(1);
    const [copy] = parked;
    expect({ ...copy, deadLetter: { ...copy!.deadLetter, time: "ignored" } }).to.deep.equal({
      ...record,
      topic: "notification.dead-letter",
      deadLetter: {
        group: "notification",
        topic: "order-events",
        error: "template missing",
        time: "ignored",
      },
    });
    expect(Date.parse(copy!.deadLetter!.time)).to.be.closeTo(Date.now(), 5000);
  });
});
