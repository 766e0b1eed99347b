import { expect } from "chai";
import { maxJsonDepth, nestsTooDeep, tooDeepMessage } from "./json-depth.js";

const arrays = (depth: number, inside = ""): string => "[".repeat(depth) + inside + "]".repeat(depth);
const objects = (depth: number): string => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);

describe("nestsTooDeep", () => {
  it("accepts up to maxJsonDepth objects and arrays open at once", () => {
    expect(maxJsonDepth).to.equal(100);
    expect(nestsTooDeep(arrays(maxJsonDepth))).to.equal(false);
    expect(nestsTooDeep(arrays(maxJsonDepth, "1"))).to.equal(false);
    expect(nestsTooDeep(objects(maxJsonDepth))).to.equal(false);
    expect(nestsTooDeep(`[${arrays(maxJsonDepth - 1)},{"b":${objects(maxJsonDepth - 2)}}]`)).to.equal(false);
  });

  it("refuses one level more, of objects, arrays or both", () => {
    expect(nestsTooDeep(arrays(maxJsonDepth + 1))).to.equal(true);
    expect(nestsTooDeep(objects(maxJsonDepth + 1))).to.equal(true);
    expect(nestsTooDeep(`{"a":${arrays(maxJsonDepth)}}`)).to.equal(true);
  });

  it("counts depth, not brackets: many siblings at one level are fine", () => {
    expect(nestsTooDeep(`[${Array.from({ length: 10_000 }, () => "[]").join(",")}]`)).to.equal(false);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(nestsTooDeep(JSON.stringify({ a: "[".repeat(1000), b: '\\"{{{{' + "{".repeat(500) }))).to.equal(
      false,
    );
    expect(nestsTooDeep(`["\\"${"[".repeat(200)}"]`)).to.equal(false);
  });

  it("refuses 1,000,000 levels without recursing (no stack overflow)", () => {
    expect(nestsTooDeep(arrays(1_000_000))).to.equal(true);
    expect(nestsTooDeep("[".repeat(1_000_000))).to.equal(true);
  });

  it("names the limit in its message", () => {
    expect(tooDeepMessage).to.equal("request body nests deeper than 100 levels");
  });
});
