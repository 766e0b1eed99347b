import { expect } from "chai";
import { amountOf, minorUnits } from "./money.js";

describe("amountOf", () => {
  it("prints amounts with at most two decimals: every one up to 2,000 rupees, and a spread of large ones", () => {
    const twoDecimals = /^\d+(\.\d{1,2})?$/;
    const check = (minor: number): void => {
      if (!twoDecimals.test(String(amountOf(minor))))
        expect.fail(`${minor} paise printed as ${amountOf(minor)}`);
    };
    for (let minor = 0; minor <= 200_000; minor++) check(minor);
    // Totals up to 5 × 10^13 paise (50 lines × 1000 units × the highest price), deterministic.
    let seed = 12345;
    for (let i = 0; i < 200_000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      check(Math.floor((seed / 2 ** 32) * 5e13));
    }
    expect(amountOf(3 * 1999)).to.equal(59.97);
  });
});

describe("minorUnits", () => {
  it("accepts safe non-negative integers and refuses what no price can be", () => {
    expect(minorUnits(1999n)).to.equal(1999);
    expect(() => minorUnits(-1n)).to.throw(RangeError);
    expect(() => minorUnits(2n ** 60n)).to.throw(RangeError);
  });
});
