/**
 * A field's `buf.validate` rules as JSON Schema keywords, for the API's description: the rules
 * every service enforces (services/runtime/src/validation) are what a client may send, so the
 * description states the same bounds. A rule this file does not know how to state is an error
 * of the generator, not something to leave out: adding such a rule to proto/ must add its
 * translation here.
 */
import { getExtension, hasExtension, type DescField } from "@bufbuild/protobuf";
import {
  field as fieldRulesOption,
  type FieldRules,
  type RepeatedRules,
  type StringRules,
} from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { getOption } from "@bufbuild/protobuf";
import { multi_line, single_line } from "@commerce/runtime/gen/commerce/options/v1/text_pb.js";
import type { JsonSchema } from "./json-schema.js";
import { textRuleDescriptions, textRulePatterns } from "./text-patterns.js";

/** The field's rules, or undefined when it has none. */
export function rulesOf(field: DescField): FieldRules | undefined {
  const rules = getOption(field, fieldRulesOption);
  return rules.type.case === undefined && !rules.required && rules.cel.length === 0 ? undefined : rules;
}

/** What the rules of one value say: schema keywords, and sentences for its description. */
export interface RuleKeywords {
  readonly keywords: JsonSchema;
  readonly notes: readonly string[];
}

/** Keywords for one value of the field (an item, for a repeated field). */
export function valueKeywords(where: string, rules: FieldRules | undefined): RuleKeywords {
  if (rules === undefined) return { keywords: {}, notes: [] };
  if (rules.cel.length > 0) throw new Error(`${where}: CEL field rules are not described`);
  const type = rules.type;
  switch (type.case) {
    case undefined:
      return { keywords: {}, notes: [] };
    case "string":
      return stringKeywords(where, type.value);
    case "int32":
    case "uint32":
    case "double":
    case "float":
      return { keywords: numberKeywords(type.value), notes: [] };
    default:
      throw new Error(`${where}: ${type.case} rules are not described`);
  }
}

/** Keywords for a repeated field's array, with `items` from its item rules. */
export function listKeywords(
  where: string,
  rules: FieldRules | undefined,
): {
  readonly array: JsonSchema;
  readonly item: FieldRules | undefined;
} {
  if (rules?.type.case !== "repeated") {
    if (rules?.type.case !== undefined) throw new Error(`${where}: ${rules.type.case} rules on a list`);
    return { array: {}, item: undefined };
  }
  const repeated: RepeatedRules = rules.type.value;
  const array: JsonSchema = {};
  if (repeated.minItems > 0n) array["minItems"] = Number(repeated.minItems);
  if (repeated.maxItems > 0n) array["maxItems"] = Number(repeated.maxItems);
  if (repeated.unique) array["uniqueItems"] = true;
  return { array, item: repeated.items };
}

function stringKeywords(where: string, rules: StringRules): RuleKeywords {
  const unsupported = [
    ...(["prefix", "suffix", "contains", "notContains", "const"] as const).filter(
      (name) => rules[name] !== "",
    ),
    ...(["len", "lenBytes", "minBytes", "maxBytes"] as const).filter((name) => rules[name] > 0n),
  ];
  if (unsupported.length > 0)
    throw new Error(`${where}: string rules ${unsupported.join(", ")} are not described`);
  const keywords: JsonSchema = {};
  if (rules.minLen > 0n) keywords["minLength"] = Number(rules.minLen);
  if (rules.maxLen > 0n) keywords["maxLength"] = Number(rules.maxLen);
  if (rules.in.length > 0) keywords["enum"] = [...rules.in];
  if (rules.notIn.length > 0) keywords["not"] = { enum: [...rules.notIn] };
  switch (rules.wellKnown.case) {
    case undefined:
      break;
    case "email":
      keywords["format"] = "email";
      break;
    default:
      throw new Error(`${where}: string rule ${rules.wellKnown.case} is not described`);
  }
  const patterns: string[] = [];
  const notes: string[] = [];
  if (rules.pattern !== "") patterns.push(rules.pattern);
  for (const [name, extension] of [
    ["single_line", single_line],
    ["multi_line", multi_line],
  ] as const) {
    if (hasExtension(rules, extension) && getExtension(rules, extension)) {
      patterns.push(textRulePatterns[name]);
      notes.push(textRuleDescriptions[name]);
    }
  }
  // JSON Schema takes one pattern per schema: several must all hold.
  if (patterns.length === 1) keywords["pattern"] = patterns[0];
  if (patterns.length > 1) keywords["allOf"] = patterns.map((pattern) => ({ pattern }));
  return { keywords, notes };
}

interface NumberRules {
  readonly greaterThan:
    { readonly case: "gt" | "gte"; readonly value: number } | { readonly case: undefined };
  readonly lessThan: { readonly case: "lt" | "lte"; readonly value: number } | { readonly case: undefined };
  readonly in: readonly number[];
  readonly notIn: readonly number[];
}

function numberKeywords(rules: NumberRules): JsonSchema {
  const keywords: JsonSchema = {};
  if (rules.greaterThan.case === "gt") keywords["exclusiveMinimum"] = rules.greaterThan.value;
  if (rules.greaterThan.case === "gte") keywords["minimum"] = rules.greaterThan.value;
  if (rules.lessThan.case === "lt") keywords["exclusiveMaximum"] = rules.lessThan.value;
  if (rules.lessThan.case === "lte") keywords["maximum"] = rules.lessThan.value;
  if (rules.in.length > 0) keywords["enum"] = [...rules.in];
  if (rules.notIn.length > 0) keywords["not"] = { enum: [...rules.notIn] };
  return keywords;
}
