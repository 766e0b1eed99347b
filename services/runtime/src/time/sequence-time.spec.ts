import { expect } from "chai";
import { createSequenceTime } from "./sequence-time.js";

describe("createSequenceTime", () => {
  it("is the wall clock's milliseconds, strictly increasing for calls within one millisecond", () => {
    const time = createSequenceTime();
    const now = new Date("2026-11-23T10:00:00.000Z");
    const values = [time(now), time(now), time(now)];
    expect(values[0]).to.equal(now.getTime());
    expect(values[1]).to.be.greaterThan(values[0] ?? 0);
    expect(values[2]).to.be.greaterThan(values[1] ?? 0);
    expect(time(new Date(now.getTime() + 5))).to.equal(now.getTime() + 5);
  });

  it("never goes back when the wall clock does", () => {
    const time = createSequenceTime();
    const first = time(new Date(2_000));
    expect(time(new Date(1_000))).to.be.greaterThan(first);
  });
});
