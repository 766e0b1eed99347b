import { expect } from "chai";
import { checkRetryPolicy, retry, type RetryOptions } from "./retry.js";
import { rejectionOf } from "../testing/rejection.js";

/** An operation that fails with `errors` in turn, then resolves with "done"; counts its calls. */
function flaky(...errors: Error[]): { calls: number; operation: () => Promise<string> } {
  const state = {
    calls: 0,
    operation: (): Promise<string> => {
      const error = errors[state.calls];
      state.calls += 1;
      return error === undefined ? Promise.resolve("done") : Promise.reject(error);
    },
  };
  return state;
}

const quick: RetryOptions = { maxAttempts: 5, backoff: { initialMs: 1, maxMs: 2, jitter: "full" } };

describe("retry", () => {
  it("calls again after each failure and resolves with the first success, numbering the calls", async () => {
    const target = flaky(new Error("one"), new Error("two"));
    const numbers: number[] = [];
    const value = await retry((attempt) => {
      numbers.push(attempt);
      return target.operation();
    }, quick);
    expect(value).to.equal("done");
    expect(numbers).to.deep.equal([1, 2, 3]);
  });

  it("rejects with the last failure after maxAttempts calls", async () => {
    const errors = [new Error("1"), new Error("2"), new Error("3"), new Error("4")];
    const target = flaky(...errors);
    expect(await rejectionOf(retry(target.operation, { ...quick, maxAttempts: 3 }))).to.equal(errors[2]);
    expect(target.calls).to.equal(3);
  });

  it("rejects at once with a failure that is not retryable", async () => {
    const permanent = new Error("refused");
    const target = flaky(new Error("blip"), permanent, new Error("never reached"));
    const outcome = rejectionOf(
      retry(target.operation, { ...quick, retryable: (error) => error !== permanent }),
    );
    expect(await outcome).to.equal(permanent);
    expect(target.calls).to.equal(2);
  });

  it("tells onRetry of each failure it retries, with the pause it then waits", async () => {
    const target = flaky(new Error("a"), new Error("b"));
    const told: [string, number, number][] = [];
    await retry(target.operation, {
      maxAttempts: 3,
      backoff: { initialMs: 4, maxMs: 6, jitter: "none" },
      onRetry: (error, failures, pauseMs) => told.push([(error as Error).message, failures, pauseMs]),
    });
    expect(told).to.deep.equal([
      ["a", 1, 4],
      ["b", 2, 6],
    ]);
  });

  it("stops at the deadline: no call begins after it, and the last failure is the answer", async () => {
    let calls = 0;
    const started = performance.now();
    const error = await rejectionOf(
      retry(
        () => {
          calls += 1;
          return Promise.reject(new Error(`failure ${calls}`));
        },
        { maxAttempts: Infinity, deadlineMs: 250, backoff: { initialMs: 40, maxMs: 40, jitter: "none" } },
      ),
    );
    const elapsed = performance.now() - started;
    // Calls at about 0, 40, 80, ..., 240 ms: a pause from 240 would end past 250.
    expect(elapsed).to.be.below(250 + 40);
    expect(calls).to.be.within(3, 7);
    expect((error as Error).message).to.equal(`failure ${calls}`);
  });

  it("ends a pause when the signal aborts, rejecting with its reason and calling no more", async () => {
    const target = flaky(new Error("down"), new Error("down"));
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const started = performance.now();
    const outcome = rejectionOf(
      retry(target.operation, {
        maxAttempts: 5,
        backoff: { initialMs: 60_000, maxMs: 60_000, jitter: "none" },
        signal: controller.signal,
        onRetry: () => queueMicrotask(() => controller.abort(reason)),
      }),
    );
    expect(await outcome).to.equal(reason);
    // The pause was a minute: answering well before it proves the abort cut it short.
    expect(performance.now() - started).to.be.below(5_000);
    expect(target.calls).to.equal(1);
  });

  it("without a signal waits its pauses out", async () => {
    const target = flaky(new Error("contended"));
    const started = performance.now();
    await retry(target.operation, { maxAttempts: 2, backoff: { initialMs: 60, maxMs: 60, jitter: "none" } });
    expect(performance.now() - started).to.be.at.least(55);
    expect(target.calls).to.equal(2);
  });

  it("refuses a policy that cannot be meant", () => {
    const backoff = { initialMs: 1, maxMs: 1, jitter: "none" } as const;
    expect(() => checkRetryPolicy({ maxAttempts: 0, backoff })).to.throw(
      RangeError,
      "maxAttempts must be a positive integer or Infinity, got 0",
    );
    expect(() => checkRetryPolicy({ maxAttempts: 1.5, backoff })).to.throw(RangeError);
    expect(() => checkRetryPolicy({ maxAttempts: Infinity, backoff })).to.throw(
      RangeError,
      "an unbounded number of attempts needs a deadline",
    );
    expect(() => checkRetryPolicy({ maxAttempts: 3, deadlineMs: -1, backoff })).to.throw(RangeError);
    expect(() => checkRetryPolicy({ maxAttempts: Infinity, deadlineMs: 1_000, backoff })).not.to.throw();
  });
});
