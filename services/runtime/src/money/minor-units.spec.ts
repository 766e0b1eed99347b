import { expect } from "chai";
import { fromMinorUnits, fromMinorUnitsTotal, minorUnitsFromWire, toMinorUnits } from "./minor-units.js";

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

describe("fromMinorUnits", () => {
  it("prints amounts with at most two decimals: every one up to 2,000 rupees, and a spread of large ones", () => {
    const twoDecimals = /^\d+(\.\d{1,2})?$/;
    const check = (minor: number): void => {
      if (!twoDecimals.test(String(fromMinorUnits(minor))))
        expect.fail(`${minor} paise printed as ${fromMinorUnits(minor)}`);
    };
    for (let minor = 0; minor <= 200_000; minor++) check(minor);
    // Totals up to 5 × 10^13 paise (50 lines × 1000 units × the highest price), deterministic.
    let seed = 12345;
    for (let i = 0; i < 200_000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      check(Math.floor((seed / 2 ** 32) * 5e13));
    }
    expect(fromMinorUnits(3 * 1999)).to.equal(59.97);
  });
});

describe("fromMinorUnitsTotal", () => {
  it("gives fromMinorUnits' amount for every sum below 2^53, negative ones too", () => {
    let seed = 777;
    for (let i = 0; i < 100_000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const minor = Math.floor((seed / 2 ** 32) * Number.MAX_SAFE_INTEGER);
      if (fromMinorUnitsTotal(BigInt(minor)) !== fromMinorUnits(minor))
        expect.fail(`${minor} paise gave ${fromMinorUnitsTotal(BigInt(minor))}`);
    }
    for (const minor of [0, 1, 5, 10, 99, 100, 5997, 9_007_199_254_740_991])
      expect(fromMinorUnitsTotal(BigInt(minor))).to.equal(fromMinorUnits(minor));
    expect(fromMinorUnitsTotal(-5997n)).to.equal(-59.97);
    expect(fromMinorUnitsTotal(-5n)).to.equal(-0.05);
  });

  it("gives the double nearest to the exact amount beyond 2^53", () => {
    // 90071992547409.93 is not a double: the nearest one prints 90071992547409.94.
    expect(fromMinorUnitsTotal(9_007_199_254_740_993n)).to.equal(90071992547409.94);
    expect(fromMinorUnitsTotal(9_223_372_036_854_775_807n)).to.equal(Number("92233720368547758.07"));
  });
});

describe("minorUnitsFromWire", () => {
  it("accepts safe non-negative integers and refuses what no price can be", () => {
    expect(minorUnitsFromWire(1999n)).to.equal(1999);
    expect(() => minorUnitsFromWire(-1n)).to.throw(RangeError);
    expect(() => minorUnitsFromWire(2n ** 60n)).to.throw(RangeError);
  });
});
