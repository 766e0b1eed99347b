import { expect } from "chai";
import { encodeJsonEachRow } from "./json-each-row.js";
import type { SqlValue } from "./sql.js";

describe("encodeJsonEachRow", () => {
  it("refuses values it cannot write exactly", () => {
    for (const value of [
      undefined,
      Number.NaN,
      2 ** 53,
      "lone \ud800",
      new Date(Number.NaN),
      ["a"],
      { a: 1 },
    ]) {
      expect(() => encodeJsonEachRow([{ column: value as SqlValue }]), JSON.stringify(value)).to.throw(
        TypeError,
      );
    }
  });

  it("writes one JSON object per line, bigints as exact numbers, booleans as 1 or 0, dates in UTC seconds", () => {
    expect(
      encodeJsonEachRow([
        {
          id: 'e"1\n',
          amount: 9_007_199_254_740_993n,
          ok: true,
          at: new Date("2024-05-01T10:00:00.250Z"),
          note: null,
        },
        { id: "e2", amount: -5, ok: false, at: new Date("2024-05-01T10:00:01Z"), note: "é" },
      ]),
    ).to.equal(
      '{"id":"e\\"1\\n","amount":9007199254740993,"ok":1,"at":"2024-05-01 10:00:00","note":null}\n' +
        '{"id":"e2","amount":-5,"ok":0,"at":"2024-05-01 10:00:01","note":"é"}\n',
    );
  });
});
