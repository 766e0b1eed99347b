import { expect } from "chai";
import { StoreUnavailableError } from "../store/document-store.js";
import { rejectionOf } from "../testing/rejection.js";
import type { EventRecord, RecordBatch } from "./event-bus.js";
import type { EventLogger } from "./event-logger.js";
import { PermanentEventError } from "./permanent-event-error.js";
import { withBatchDeadLetters, withDeadLetters, type DeadLetter } from "./dead-lettering-handler.js";

const record = (n: number): EventRecord => ({
  id: `evt-${n}`,
  type: "ORDER_PLACED",
  source: "/commerce/order",
  time: "2024-05-01T10:00:00.000Z",
  subject: `order-${n}`,
  topic: "order-events",
  data: `{"orderId":"order-${n}"}`,
});

const silent: EventLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const running = (): AbortSignal => new AbortController().signal;

/** A dead-letter callback that keeps what it is handed: each record's id and error message. */
function parking(): { parked: [string, string][]; deadLetter: DeadLetter } {
  const parked: [string, string][] = [];
  return {
    parked,
    deadLetter: (r, error) => {
      parked.push([r.id, (error as Error).message]);
      return Promise.resolve();
    },
  };
}

describe("withDeadLetters", () => {
  it("parks a record whose handler throws a PermanentEventError and resolves, so the partition moves on", async () => {
    const { parked, deadLetter } = parking();
    const handler = withDeadLetters(
      () => Promise.reject(new PermanentEventError("has no orderId")),
      deadLetter,
    );

    await handler(record(1), running());

    expect(parked).to.deep.equal([["evt-1", "has no orderId"]]);
  });

  it("rejects with any other failure, an unreachable store or a bug, and parks nothing", async () => {
    const { parked, deadLetter } = parking();
    const outage = new StoreUnavailableError(new Error("connect ECONNREFUSED 127.0.0.1:27017"));
    const bug = new TypeError("Cannot read properties of undefined (reading 'items')");
    for (const failure of [outage, bug]) {
      const handler = withDeadLetters(() => Promise.reject(failure), deadLetter);
      expect(await rejectionOf(handler(record(2), running()))).to.equal(failure);
    }

    expect(parked).to.deep.equal([]);
  });

  it("parks nothing once the signal aborted: the closing subscription's record comes again", async () => {
    const { parked, deadLetter } = parking();
    const controller = new AbortController();
    const handler = withDeadLetters(() => {
      controller.abort(new Error("subscription closed"));
      return Promise.reject(new PermanentEventError("unreadable"));
    }, deadLetter);

    expect(((await rejectionOf(handler(record(3), controller.signal))) as Error).message).to.equal(
      "unreadable",
    );
    expect(parked).to.deep.equal([]);
  });

  it("rejects when parking fails, so the bus redelivers instead of losing the record", async () => {
    const handler = withDeadLetters(
      () => Promise.reject(new PermanentEventError("unreadable")),
      () => Promise.reject(new Error("dead-letter topic unavailable")),
    );

    expect(((await rejectionOf(handler(record(4), running()))) as Error).message).to.equal(
      "dead-letter topic unavailable",
    );
  });
});

describe("withBatchDeadLetters", () => {
  const batch = (...ns: number[]): RecordBatch => ({
    topic: "order-events",
    partition: 2,
    records: ns.map(record),
  });

  /** A batch handler that refuses, with `failure`, any batch holding one of `refused`; counts calls. */
  function refusing(failure: (id: string) => Error, ...refused: string[]) {
    const calls: string[][] = [];
    return {
      calls,
      handler: (given: RecordBatch): Promise<void> => {
        calls.push(given.records.map((r) => r.id));
        const bad = given.records.find((r) => refused.includes(r.id));
        return bad === undefined ? Promise.resolve() : Promise.reject(failure(bad.id));
      },
    };
  }

  it("rejects a batch that fails otherwise, whole and at once, parking nothing", async () => {
    const { parked, deadLetter } = parking();
    const target = refusing(() => new StoreUnavailableError(new Error("pool cleared")), "evt-2");
    const handler = withBatchDeadLetters(target.handler, deadLetter, silent);

    expect(await rejectionOf(handler(batch(1, 2, 3), running()))).to.be.instanceOf(StoreUnavailableError);
    expect(target.calls).to.deep.equal([["evt-1", "evt-2", "evt-3"]]);
    expect(parked).to.deep.equal([]);
  });

  it("hands the records of a batch with a record that can never be handled over one at a time, and parks only that one", async () => {
    const { parked, deadLetter } = parking();
    const target = refusing((id) => new PermanentEventError(`${id} is unreadable`), "evt-2");
    const handler = withBatchDeadLetters(target.handler, deadLetter, silent);

    await handler(batch(1, 2, 3), running());

    expect(target.calls).to.deep.equal([["evt-1", "evt-2", "evt-3"], ["evt-1"], ["evt-2"], ["evt-3"]]);
    expect(parked).to.deep.equal([["evt-2", "evt-2 is unreadable"]]);
  });

  it("parks a batch of one at once, without calling its handler again", async () => {
    const { parked, deadLetter } = parking();
    const target = refusing(() => new PermanentEventError("unreadable"), "evt-7");
    const handler = withBatchDeadLetters(target.handler, deadLetter, silent);

    await handler(batch(7), running());

    expect(target.calls).to.deep.equal([["evt-7"]]);
    expect(parked).to.deep.equal([["evt-7", "unreadable"]]);
  });

  it("rejects a split batch at the first record that fails otherwise, so the bus delivers the batch again", async () => {
    const { parked, deadLetter } = parking();
    const calls: string[][] = [];
    const handler = withBatchDeadLetters(
      (given) => {
        calls.push(given.records.map((r) => r.id));
        if (given.records.length > 1) return Promise.reject(new PermanentEventError("evt-1 is unreadable"));
        const [only] = given.records;
        if (only?.id === "evt-1") return Promise.reject(new PermanentEventError("evt-1 is unreadable"));
        if (only?.id === "evt-2") return Promise.reject(new Error("connect ECONNRESET"));
        return Promise.resolve();
      },
      deadLetter,
      silent,
    );

    expect(((await rejectionOf(handler(batch(1, 2, 3), running()))) as Error).message).to.equal(
      "connect ECONNRESET",
    );
    expect(calls).to.deep.equal([["evt-1", "evt-2", "evt-3"], ["evt-1"], ["evt-2"]]);
    expect(parked).to.deep.equal([["evt-1", "evt-1 is unreadable"]]);
  });

  it("parks nothing once the signal aborted", async () => {
    const { parked, deadLetter } = parking();
    const controller = new AbortController();
    const handler = withBatchDeadLetters(
      () => {
        controller.abort(new Error("subscription closed"));
        return Promise.reject(new PermanentEventError("unreadable"));
      },
      deadLetter,
      silent,
    );

    expect(await rejectionOf(handler(batch(1, 2), controller.signal))).to.be.instanceOf(PermanentEventError);
    expect(parked).to.deep.equal([]);
  });
});
