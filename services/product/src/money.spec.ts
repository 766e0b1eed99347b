import { expect } from "chai";
import { fromMinorUnits, toMinorUnits } from "./money.js";

describe("toMinorUnits", () => {
  it("converts prices with up to two decimals exactly, including ones binary floating point cannot hold", () => {
    expect(toMinorUnits(19.99)).to.equal(1999);
    expect(toMinorUnits(0.01)).to.equal(1);
    expect(toMinorUnits(1.1)).to.equal(110);
    expect(toMinorUnits(0.29)).to.equal(29);
    expect(toMinorUnits(4.35)).to.equal(435);
    expect(toMinorUnits(1234567.89)).to.equal(123456789);
    expect(toMinorUnits(10000000)).to.equal(1000000000);
  });

  it("refuses prices with a third decimal instead of rounding them", () => {
    expect(toMinorUnits(19.999)).to.equal(undefined);
    expect(toMinorUnits(0.125)).to.equal(undefined);
    expect(toMinorUnits(0.001)).to.equal(undefined);
    expect(toMinorUnits(Number.NaN)).to.equal(undefined);
    expect(toMinorUnits(Number.POSITIVE_INFINITY)).to.equal(undefined);
  });

  it("round-trips every two-decimal price from 0.00 to 100.00", () => {
    for (let minor = 0; minor <= 10_000; minor++) {
      const price = Number((minor / 100).toFixed(2));
      expect(toMinorUnits(price)).to.equal(minor);
      expect(fromMinorUnits(minor)).to.equal(price);
    }
  });
});
