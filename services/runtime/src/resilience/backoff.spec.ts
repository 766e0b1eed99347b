import { expect } from "chai";
import { backoffPauseMs, checkBackoff, type Backoff } from "./backoff.js";

const failures = [1, 2, 3, 4, 5];
const lowest = (): number => 0;
const highest = (): number => 0.999999;

describe("backoffPauseMs", () => {
  it("with equal jitter doubles from the initial pause up to the cap, within the upper half", () => {
    const backoff: Backoff = { initialMs: 100, maxMs: 500, jitter: "equal" };
    expect(failures.map((n) => backoffPauseMs(backoff, n, lowest))).to.deep.equal([50, 100, 200, 250, 250]);
    expect(failures.map((n) => backoffPauseMs(backoff, n, highest))).to.deep.equal([100, 200, 400, 500, 500]);
  });

  it("with full jitter draws anywhere from zero up to the doubling, capped ceiling", () => {
    const backoff: Backoff = { initialMs: 1, maxMs: 50, jitter: "full" };
    expect([1, 2, 6, 7, 30].map((n) => backoffPauseMs(backoff, n, lowest))).to.deep.equal([0, 0, 0, 0, 0]);
    expect([1, 2, 6, 7, 30].map((n) => backoffPauseMs(backoff, n, highest))).to.deep.equal([
      1, 2, 32, 50, 50,
    ]);
    expect(backoffPauseMs(backoff, 7, () => 0.5)).to.equal(25);
  });

  it("without jitter waits the ceiling itself, and grows without bound when uncapped", () => {
    expect(
      failures.map((n) => backoffPauseMs({ initialMs: 100, maxMs: 5000, jitter: "none" }, n)),
    ).to.deep.equal([100, 200, 400, 800, 1600]);
    expect(backoffPauseMs({ initialMs: 200, maxMs: Infinity, jitter: "none" }, 12)).to.equal(409_600);
  });

  it("refuses a negative pause and a cap below the start", () => {
    expect(() => checkBackoff({ initialMs: -1, maxMs: 5, jitter: "full" })).to.throw(
      RangeError,
      "a backoff needs 0 <= initialMs <= maxMs, got -1 and 5",
    );
    expect(() => checkBackoff({ initialMs: 10, maxMs: 5, jitter: "none" })).to.throw(RangeError);
    expect(() => checkBackoff({ initialMs: 0, maxMs: 0, jitter: "none" })).not.to.throw();
  });
});
