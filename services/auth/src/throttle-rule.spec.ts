import { expect } from "chai";
import {
  charged,
  delayFor,
  forgiven,
  heldAt,
  refunded,
  type ThrottleState,
  waitMs,
} from "./throttle-rule.js";

describe("a throttle rule (leaky bucket with growing waits)", () => {
  const rule = { free: 3, firstDelayMs: 10_000, maxDelayMs: 60_000, forgiveMs: 100_000 };

  /** Charges a check at each of `times` on an empty bucket. */
  function chargedAt(...times: number[]): ThrottleState | undefined {
    let state: ThrottleState | undefined;
    for (const at of times) state = charged(rule, state, at);
    return state;
  }

  it("lets `free` checks through at once, then waits the first delay after the latest one", () => {
    expect(waitMs(rule, undefined, 0)).to.equal(0);
    expect(waitMs(rule, chargedAt(0), 0)).to.equal(0);
    expect(waitMs(rule, chargedAt(0, 0), 0)).to.equal(0);
    expect(waitMs(rule, chargedAt(0, 0, 0), 0)).to.equal(10_000);
    expect(waitMs(rule, chargedAt(0, 0, 500), 2_000)).to.equal(8_500);
  });

  it("doubles the wait for each check held past `free`, up to the longest wait", () => {
    expect([2, 3, 4, 5, 6, 7, 50].map((held) => delayFor(rule, held))).to.deep.equal([
      0, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000,
    ]);
    // Four checks at once: the fourth waited for nothing (it was charged anyway), so the next
    // waits 20 s after it.
    expect(waitMs(rule, chargedAt(0, 0, 0, 0), 0)).to.equal(20_000);
  });

  it("forgives one check per forgiveMs, and the wait shrinks with the bucket", () => {
    const full = chargedAt(0, 0, 0, 0, 0, 0); // six held: the next waits 60 s
    expect(heldAt(rule, full ?? { debtUntil: 0, lastAt: 0 }, 0)).to.equal(6);
    expect(waitMs(rule, full, 0)).to.equal(60_000);
    // With longer waits, draining lets the check through first: six held wait 1,000 s (the
    // cap), five from 100 s on wait 800 s, four from 200 s on 400 s, three from 300 s on 200 s
    // (over by then), two from 400 s on none. So the check goes through at 300 s.
    const slow = { ...rule, firstDelayMs: 200_000, maxDelayMs: 1_000_000 };
    expect(waitMs(slow, full, 0)).to.equal(300_000);
    expect(waitMs(slow, full, 150_000)).to.equal(150_000);
    expect(waitMs(slow, full, 300_000)).to.equal(0);
    expect(heldAt(rule, full ?? { debtUntil: 0, lastAt: 0 }, 600_000)).to.equal(0);
  });

  it("a refund takes one check back, and the latest check's time with it when none came since", () => {
    const before = chargedAt(0, 5_000) ?? { debtUntil: 0, lastAt: 0 };
    const after = charged(rule, before, 7_000);
    expect(refunded(rule, after, { at: 7_000, previousLastAt: 5_000 })).to.deep.equal(before);
    const later = charged(rule, after, 8_000);
    expect(refunded(rule, later, { at: 7_000, previousLastAt: 5_000 })).to.deep.equal({
      debtUntil: later.debtUntil - rule.forgiveMs,
      lastAt: 8_000,
    });
  });

  it("keeps the latest check the latest when a concurrent login charges an earlier instant after it", () => {
    const later = chargedAt(0, 5_000) ?? { debtUntil: 0, lastAt: 0 };
    expect(charged(rule, later, 3_000)).to.deep.equal({
      debtUntil: later.debtUntil + rule.forgiveMs,
      lastAt: 5_000,
    });
  });

  it("a forgiven bucket holds nothing and lets a check through", () => {
    const full = chargedAt(0, 0, 0, 0) ?? { debtUntil: 0, lastAt: 0 };
    const empty = forgiven(full, 1_000);
    expect(heldAt(rule, empty, 1_000)).to.equal(0);
    expect(waitMs(rule, empty, 1_000)).to.equal(0);
  });
});
