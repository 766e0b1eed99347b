import { expect } from "chai";
import { setSignalDeadline, signalDeadline } from "./deadline-sweeper.js";

describe("signal deadlines", () => {
  it("tells the deadline registered for a signal, and forgets it when a reused signal's next call has none", () => {
    const { signal } = new AbortController();
    expect(signalDeadline(signal)).to.equal(undefined);
    setSignalDeadline(signal, 1_700_000_000_000);
    expect(signalDeadline(signal)).to.equal(1_700_000_000_000);
    setSignalDeadline(signal, undefined);
    expect(signalDeadline(signal)).to.equal(undefined);
  });
});
