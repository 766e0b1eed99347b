import { expect } from "chai";
import { DomainError } from "@commerce/runtime/errors";
import { maxRangeDays, revenueRange } from "./revenue-range.js";

function refusal(from: string, to: string, today = "2026-03-15"): string {
  try {
    revenueRange(from, to, today);
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).kind).to.equal("invalid");
    return (error as DomainError).message;
  }
  throw new Error(`expected ${from}..${to} to be refused`);
}

describe("revenueRange", () => {
  it("covers the 30 days ending today when neither end is given", () => {
    const range = revenueRange("", "", "2026-03-15");
    expect(range.from).to.equal("2026-02-14");
    expect(range.to).to.equal("2026-03-15");
    expect(range.days).to.have.length(30);
    expect(range.days[0]).to.equal("2026-02-14");
    expect(range.days[29]).to.equal("2026-03-15");
  });

  it("ends today when only from is given, and starts 29 days before to when only to is given", () => {
    expect(revenueRange("2026-03-10", "", "2026-03-15").days).to.deep.equal([
      "2026-03-10",
      "2026-03-11",
      "2026-03-12",
      "2026-03-13",
      "2026-03-14",
      "2026-03-15",
    ]);
    const onlyTo = revenueRange("", "2024-03-01", "2026-03-15");
    expect([onlyTo.from, onlyTo.to, onlyTo.days.length]).to.deep.equal(["2024-02-01", "2024-03-01", 30]);
  });

  it("lists every day once, in order, across month ends, a leap day and a one-day range", () => {
    expect(revenueRange("2024-02-27", "2024-03-02", "2026-01-01").days).to.deep.equal([
      "2024-02-27",
      "2024-02-28",
      "2024-02-29",
      "2024-03-01",
      "2024-03-02",
    ]);
    expect(revenueRange("2025-12-31", "2025-12-31", "2026-01-01").days).to.deep.equal(["2025-12-31"]);
  });

  it(`allows ${maxRangeDays} days and refuses one more`, () => {
    expect(revenueRange("2024-01-01", "2024-12-31", "2026-01-01").days).to.have.length(366);
    expect(refusal("2023-01-01", "2024-01-02")).to.equal(
      'the range from "from" to "to" must be at most 366 days, got 367',
    );
  });

  it("refuses from after to, also when to is today by default", () => {
    expect(refusal("2026-03-02", "2026-03-01")).to.equal(
      '"from" (2026-03-02) must not be after "to" (2026-03-01)',
    );
    expect(refusal("2026-03-16", "")).to.equal('"from" (2026-03-16) must not be after "to" (2026-03-15)');
  });

  it("refuses dates that are not calendar days or not in YYYY-MM-DD", () => {
    expect(refusal("2026-02-30", "")).to.equal('"from" must be a calendar date YYYY-MM-DD, got "2026-02-30"');
    expect(refusal("", "2025-02-29")).to.equal('"to" must be a calendar date YYYY-MM-DD, got "2025-02-29"');
    for (const bad of ["2026-13-01", "2026-00-10", "2026-1-01", "20260101", "2026-01-01T00:00:00", "today"]) {
      expect(refusal(bad, "")).to.match(/^"from" must be a calendar date/);
    }
    expect(refusal("1969-12-31", "1970-01-05")).to.equal(
      '"from" must be a date from 1970-01-01 to 2105-12-31, got "1969-12-31"',
    );
  });
});
