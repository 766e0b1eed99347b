/**
 * What proto/ says of a field for the API's description beyond its type and rules: the option
 * `(commerce.options.v1.field)` (proto/commerce/options/v1/options.proto) with an example, a
 * format (wall-clock time, date, money) and what it stands for (an id of some kind of thing, or
 * another value such as an order's total), which links operations.
 */
import { getOption, ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { field as fieldOption, FieldFormat } from "@commerce/runtime/gen/commerce/options/v1/options_pb.js";
import type { FieldRules } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";

export { FieldFormat };

export interface FieldContract {
  readonly example: string | undefined;
  readonly format: FieldFormat;
  /** What the value stands for, for links: "order id" (`id_of`), "order total" (`same_as`). */
  readonly linksAs: string | undefined;
}

export function fieldContract(field: DescField): FieldContract {
  const option = getOption(field, fieldOption);
  return {
    example: option.example === "" ? undefined : option.example,
    format: option.format,
    linksAs: option.idOf !== "" ? `${option.idOf} id` : option.sameAs !== "" ? option.sameAs : undefined,
  };
}

/** A UTC wall-clock moment as the API writes it. */
export const wallClockPattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$";
/** A calendar day as the API writes it. */
export const datePattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";

const formatExamples: Partial<Record<FieldFormat, string>> = {
  [FieldFormat.WALL_CLOCK]: "2026-11-27T10:15:30",
  [FieldFormat.DATE]: "2026-11-27",
};

/** What a value stands for ("order id") → the example one field of that kind gives. */
export type KindExamples = ReadonlyMap<string, string>;

/**
 * The examples of what values stand for, from `messages` and every message they hold: an id is
 * given its example once, on one of the fields that hold it, and every other field holding such
 * an id shows the same one. Two different examples for one kind are a mistake in proto/.
 */
export function kindExamples(messages: readonly DescMessage[]): KindExamples {
  const found = new Map<string, { example: string; where: string }>();
  const seen = new Set<DescMessage>();
  const visit = (message: DescMessage): void => {
    if (seen.has(message)) return;
    seen.add(message);
    for (const field of message.fields) {
      const { example, linksAs } = fieldContract(field);
      const where = `${message.typeName}.${field.name}`;
      if (example !== undefined && linksAs !== undefined) {
        const known = found.get(linksAs);
        if (known !== undefined && known.example !== example)
          throw new Error(`${where} and ${known.where} give a ${linksAs} two examples`);
        found.set(linksAs, { example, where });
      }
      if (field.message !== undefined) visit(field.message);
    }
  };
  for (const message of messages) visit(message);
  return new Map([...found].map(([kind, { example }]) => [kind, example]));
}

/**
 * An example of one value of a scalar field (an item, for a list): its option's example in the
 * field's JSON type, else the example of what it stands for, else what its format, its `in`
 * rule or its lower bound implies. Text with none of these has no example that would mean
 * anything: the generator asks for one.
 */
export function scalarExample(
  field: DescField,
  scalar: ScalarType,
  rules: FieldRules | undefined,
  byKind: KindExamples,
): unknown {
  const where = `${field.parent.typeName}.${field.name}`;
  const contract = fieldContract(field);
  const { format } = contract;
  const example =
    contract.example ?? (contract.linksAs === undefined ? undefined : byKind.get(contract.linksAs));
  switch (scalar) {
    case ScalarType.BOOL:
      return example === undefined ? false : example === "true";
    case ScalarType.STRING: {
      if (example !== undefined) return example;
      const formatted = formatExamples[format];
      if (formatted !== undefined) return formatted;
      const listed =
        rules?.type.case === "string" ? rules.type.value.in.find((value) => value !== "") : undefined;
      if (listed !== undefined) return listed;
      throw new Error(`${where}: text without an example (add (commerce.options.v1.field).example)`);
    }
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
    case ScalarType.INT32:
    case ScalarType.UINT32: {
      if (example !== undefined) {
        const value = Number(example);
        if (!Number.isFinite(value)) throw new Error(`${where}: example "${example}" is not a number`);
        return value;
      }
      const type = rules?.type;
      if (type?.case === "int32" || type?.case === "uint32" || type?.case === "double") {
        const bound = type.value.greaterThan;
        if (bound.case === "gte") return bound.value;
        if (bound.case === "gt") return bound.value + 1;
      }
      return 1;
    }
    default:
      throw new Error(`${where}: no example for ${ScalarType[scalar]}`);
  }
}
