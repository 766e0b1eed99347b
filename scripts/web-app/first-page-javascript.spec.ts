import { expect } from "chai";
import {
  firstPageBudgetBytes,
  measureFirstPage,
  withinBudget,
  type BuiltChunk,
} from "./first-page-javascript.js";

/** A chunk of `bytes` bytes that compress badly (no repetition a compressor could use). */
function chunk(fileName: string, bytes: number, imports: string[] = [], isEntry = false): BuiltChunk {
  let code = "";
  for (let seed = fileName.length; code.length < bytes; seed = (seed * 1103515245 + 12345) % 2 ** 31)
    code += seed.toString(36);
  return { fileName, isEntry, imports, code: code.slice(0, bytes) };
}

describe("measureFirstPage", () => {
  it("counts the entry and what it imports statically, transitively, once each, and not the chunks loaded later", () => {
    const measured = measureFirstPage([
      chunk("assets/index.js", 1000, ["assets/react.js", "assets/shared.js"], true),
      chunk("assets/react.js", 2000, ["assets/shared.js"]),
      chunk("assets/shared.js", 500),
      // The admin console: imported dynamically, so nothing imports it statically.
      chunk("assets/console.js", 50_000, ["assets/shared.js"]),
    ]);
    expect(measured.files).to.deep.equal(["assets/index.js", "assets/react.js", "assets/shared.js"]);
    expect(measured.rawBytes).to.equal(3500);
    expect(measured.gzipBytes).to.be.within(1000, 3500);
    expect(measured.brotliBytes).to.be.within(1000, 3500);
  });

  it("holds the first page to 200 kB compressed, whichever compression is larger", () => {
    expect(firstPageBudgetBytes).to.equal(200_000);
    const small = measureFirstPage([chunk("a.js", 10_000, [], true)]);
    expect(withinBudget(small)).to.equal(true);
    // Text that barely compresses: over 200 kB either way.
    const large = measureFirstPage([chunk("a.js", 200_000, ["b.js"], true), chunk("b.js", 200_000)]);
    expect(large.gzipBytes).to.be.greaterThan(firstPageBudgetBytes);
    expect(withinBudget(large)).to.equal(false);
    expect(withinBudget({ ...small, brotliBytes: firstPageBudgetBytes + 1 })).to.equal(false);
  });

  it("refuses a bundle without an entry", () => {
    expect(() => measureFirstPage([chunk("a.js", 10)])).to.throw("no entry chunk");
  });
});
