import { expect } from "chai";
import { notationCases } from "./notation-cases.js";
import { fieldNotation, isPlainDecimal, numberNotations, parameterNotation } from "./plain-decimal.js";

describe("plain decimal notation (the local edge)", () => {
  it("accepts exactly the texts the shared cases call plain, per kind (64-bit kinds as their 32-bit twins)", () => {
    for (const { text, i, u, f } of notationCases) {
      expect(isPlainDecimal(text, "i"), `"${text}" as i`).to.equal(i);
      expect(isPlainDecimal(text, "I"), `"${text}" as I`).to.equal(i);
      expect(isPlainDecimal(text, "u"), `"${text}" as u`).to.equal(u);
      expect(isPlainDecimal(text, "U"), `"${text}" as U`).to.equal(u);
      expect(isPlainDecimal(text, "f"), `"${text}" as f`).to.equal(f);
    }
  });

  it("says what each kind must look like in its refusals", () => {
    expect(parameterNotation("page", "i")).to.equal(
      'parameter "page" must be an integer in plain decimal digits',
    );
    expect(fieldNotation("price", "f")).to.equal(
      'field "price" must be a JSON number: a number in plain decimal notation',
    );
    expect(numberNotations.u.shape).to.equal("a non-negative integer in plain decimal digits");
  });
});
