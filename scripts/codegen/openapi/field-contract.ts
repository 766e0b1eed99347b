/**
 * What proto/ says of a field for the API's description beyond its type and rules: the option
 * `(commerce.options.v1.field)` (proto/commerce/options/v1/options.proto) with an example, a
 * format (wall-clock time, date, money) and what it stands for (an id of some kind of thing, or
 * another value such as an order's total), which links operations.
 */
import { getOption, ScalarType, type DescField } from "@bufbuild/protobuf";
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

/**
 * An example of one value of a scalar field (an item, for a list): its option's example in the
 * field's JSON type, else what its format, its `in` rule or its lower bound implies. Text with
 * none of these has no example that would mean anything: the generator asks for one.
 */
export function scalarExample(field: DescField, scalar: ScalarType, rules: FieldRules | undefined): unknown {
  const where = `${field.parent.typeName}.${field.name}`;
  const { example, format } = fieldContract(field);
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
