import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { create, createRegistry } from "@bufbuild/protobuf";
import { createValidator } from "@bufbuild/protovalidate";
import { RegisterRequestSchema } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { file_commerce_options_v1_text } from "@commerce/runtime/gen/commerce/options/v1/text_pb.js";
import { ProductDraftSchema } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { textRulePatterns } from "./text-patterns.js";

const validator = createValidator({ registry: createRegistry(file_commerce_options_v1_text) });

/** Every code point of the blocks where the rules refuse something, and samples around them. */
function samples(): number[] {
  const ranges: [number, number][] = [
    [0x0, 0x2ff],
    [0x600, 0x6ff],
    [0x1800, 0x18ff],
    [0x2000, 0x20ff],
    [0xfe00, 0xffff],
    [0x1f600, 0x1f64f],
    [0xdfff0, 0xe00ff],
    [0x10fff0, 0x10ffff],
  ];
  return ranges.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => from + i));
}

/** The code points protovalidate refuses in `text`, as the services run it. */
function refusedByContract(rule: "single_line" | "multi_line", codePoints: readonly number[]): number[] {
  return codePoints.filter((codePoint) => {
    const text = `a${String.fromCodePoint(codePoint)}b`;
    const result =
      rule === "single_line"
        ? validator.validate(RegisterRequestSchema, create(RegisterRequestSchema, { fullName: text }))
        : validator.validate(ProductDraftSchema, create(ProductDraftSchema, { description: text }));
    if (result.kind === "error") throw result.error;
    const field = rule === "single_line" ? "full_name" : "description";
    return (
      result.kind === "invalid" &&
      result.error.violations.some((v) => v.field[0]?.kind === "field" && v.field[0].name === field)
    );
  });
}

describe("the text rules as JSON Schema patterns", () => {
  // Lone surrogates are not characters a JSON string of the API can hold.
  const codePoints = samples().filter((c) => c < 0xd800 || c > 0xdfff);

  for (const rule of ["single_line", "multi_line"] as const) {
    it(`refuse exactly what the contract's ${rule} rule refuses, in ECMAScript`, () => {
      const pattern = new RegExp(textRulePatterns[rule], "u");
      const refusedByPattern = codePoints.filter((c) => !pattern.test(`a${String.fromCodePoint(c)}b`));
      const refused = refusedByContract(rule, codePoints);
      // NUL, DEL, a C1 control, a zero-width space, a tag character; never an ordinary letter.
      expect(refused).to.include.members([0x0, 0x7f, 0x85, 0x200b, 0xe0001]).and.not.include(0x61);
      expect(refusedByPattern).to.deep.equal(refused);
    });

    it(`refuse exactly what the contract's ${rule} rule refuses, in Python's re (Schemathesis)`, () => {
      const script = [
        "import json, re, sys",
        "pattern, points = json.load(sys.stdin)",
        "compiled = re.compile(pattern)",
        "print(json.dumps([c for c in points if not compiled.search('a' + chr(c) + 'b')]))",
      ].join("\n");
      const output = execFileSync("python3", ["-c", script], {
        input: JSON.stringify([textRulePatterns[rule], codePoints]),
        encoding: "utf8",
      });
      expect(JSON.parse(output)).to.deep.equal(refusedByContract(rule, codePoints));
    });
  }
});
