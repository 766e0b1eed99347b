/**
 * JSON Schemas of the contract's messages as the edges read and write them (protobuf JSON: the
 * lowerCamel names of proto/, zero values printed, 32-bit integers and doubles as JSON numbers),
 * one component per message and direction:
 *   - a request message carries its `buf.validate` rules (validation-keywords.ts), refuses
 *     unknown fields (as both edges do), and requires the fields whose absence its rules refuse;
 *   - a response message requires every field the edges always print.
 * Examples come from the fields' options (field-contract.ts); descriptions from proto comments.
 */
import {
  create,
  createRegistry,
  getOption,
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
} from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { createValidator } from "@bufbuild/protovalidate";
import { message as messageRulesOption } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { file_commerce_options_v1_text } from "@commerce/runtime/gen/commerce/options/v1/text_pb.js";
import {
  datePattern,
  fieldContract,
  FieldFormat,
  kindExamples,
  scalarExample,
  wallClockPattern,
} from "./field-contract.js";
import type { JsonSchema } from "./json-schema.js";
import type { ProtoComments } from "./proto-comments.js";
import { listKeywords, rulesOf, valueKeywords } from "./validation-keywords.js";

export type Direction = "request" | "response";

/** The components a document holds, filled as operations refer to messages. */
export interface MessageSchemas {
  /** `{ $ref }` to the message's component, which is added on first use. */
  ref(message: DescMessage, direction: Direction): JsonSchema;
  /** A schema of the message without some of its fields (those a request binds to its path). */
  without(message: DescMessage, omitted: ReadonlySet<string>): JsonSchema;
  /** The schema of one field, as a query or path parameter or a body value. */
  field(field: DescField, direction: Direction): JsonSchema;
  /** An example of the message, without the omitted fields. */
  example(message: DescMessage, direction: Direction, omitted?: ReadonlySet<string>): unknown;
  /** An example of one field's value. */
  fieldExample(field: DescField, direction: Direction): unknown;
  readonly components: Readonly<Record<string, JsonSchema>>;
}

const int32Range = { minimum: -2147483648, maximum: 2147483647 };
const uint32Range = { minimum: 0, maximum: 4294967295 };

/**
 * `messages` are those the operations take and answer: the examples of what ids stand for are
 * gathered from them (field-contract.ts).
 */
export function createMessageSchemas(
  comments: ProtoComments,
  messages: readonly DescMessage[],
): MessageSchemas {
  const byKind = kindExamples(messages);
  const components: Record<string, JsonSchema> = {};
  const owners = new Map<string, string>();
  const validator = createValidator({ registry: createRegistry(file_commerce_options_v1_text) });

  function componentName(message: DescMessage, direction: Direction): string {
    const name = message.name;
    const key = `${message.typeName} ${direction}`;
    const owner = owners.get(name);
    if (owner !== undefined && owner !== key)
      throw new Error(`two components would be named ${name}: ${owner} and ${key}`);
    owners.set(name, key);
    return name;
  }

  /** The fields whose zero value the message's rules refuse: a client must send them. */
  function requiredFields(message: DescMessage): Set<string> {
    const result = validator.validate(message, create(message));
    if (result.kind === "error") throw result.error;
    const required = new Set<string>();
    if (result.kind === "valid") return required;
    for (const violation of result.error.violations) {
      const first = violation.field[0];
      if (first?.kind === "field") required.add(first.name);
    }
    return required;
  }

  /** Message-level rules a client must meet: `has(this.a) || has(this.b)`, as "one of these". */
  function messageRuleKeywords(message: DescMessage): JsonSchema {
    const alternatives: JsonSchema[] = [];
    for (const rule of getOption(message, messageRulesOption).cel) {
      const names = /^has\(this\.\w+\)(?: \|\| has\(this\.\w+\))+$/.test(rule.expression)
        ? [...rule.expression.matchAll(/has\(this\.(\w+)\)/g)].map((match) => match[1] ?? "")
        : undefined;
      if (names === undefined) throw new Error(`${message.typeName}: rule ${rule.id} is not described`);
      alternatives.push({
        // Present and not null: protobuf JSON reads null as absent.
        anyOf: names.map((name) => {
          const jsonName = jsonNameOf(message, name);
          return { required: [jsonName], properties: { [jsonName]: { not: { type: "null" } } } };
        }),
        description: `${rule.message[0]?.toUpperCase() ?? ""}${rule.message.slice(1)}.`,
      });
    }
    if (alternatives.length === 0) return {};
    return alternatives.length === 1 ? (alternatives[0] ?? {}) : { allOf: alternatives };
  }

  function objectSchema(
    message: DescMessage,
    direction: Direction,
    omitted: ReadonlySet<string>,
  ): JsonSchema {
    const fields = message.fields.filter((f) => !omitted.has(f.name));
    const required =
      direction === "request"
        ? [...requiredFields(message)]
            .filter((name) => !omitted.has(name))
            .map((name) => jsonNameOf(message, name))
        : fields.filter(alwaysPrinted).map((f) => f.jsonName);
    // Protobuf JSON reads null as an absent field: a field a request may leave out may be null.
    const properties = Object.fromEntries(
      fields.map((f) => {
        const schema = fieldSchema(f, direction);
        return [
          f.jsonName,
          direction === "request" && !required.includes(f.jsonName) ? orNull(schema) : schema,
        ];
      }),
    );
    const description = comments.of(message);
    const { description: ruleNote, ...ruleKeywords } =
      direction === "request" ? messageRuleKeywords(message) : {};
    const text = [description, typeof ruleNote === "string" ? ruleNote : undefined].filter(
      (part): part is string => part !== undefined,
    );
    return {
      type: "object",
      ...(text.length === 0 ? {} : { description: text.join("\n\n") }),
      properties,
      ...(required.length === 0 ? {} : { required }),
      ...ruleKeywords,
      // Both edges refuse a field the message does not have.
      ...(direction === "request" ? { additionalProperties: false } : {}),
    };
  }

  function ref(message: DescMessage, direction: Direction): JsonSchema {
    const name = componentName(message, direction);
    if (components[name] === undefined) {
      components[name] = {}; // a message that refers to itself finds its reference
      components[name] = objectSchema(message, direction, new Set());
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  function valueSchema(field: DescField, direction: Direction, item: boolean): JsonSchema {
    const where = `${field.parent.typeName}.${field.name}`;
    const rules = rulesOf(field);
    const { format } = fieldContract(field);
    const base = (): JsonSchema => {
      switch (field.fieldKind) {
        case "scalar":
          return scalarSchema(where, field.scalar, format);
        case "enum":
          return enumSchema(field.enum);
        case "message":
          return ref(field.message, direction);
        case "list":
          return field.listKind === "message"
            ? ref(field.message, direction)
            : field.listKind === "enum"
              ? enumSchema(field.enum)
              : scalarSchema(where, field.scalar, format);
        case "map":
          throw new Error(`${where}: a map has no single value`);
      }
    };
    const schema = base();
    if (direction === "response") return schema;
    const valueRules = item ? listKeywords(where, rules).item : rules;
    return { ...schema, ...valueKeywords(where, valueRules).keywords };
  }

  function fieldSchema(field: DescField, direction: Direction): JsonSchema {
    const where = `${field.parent.typeName}.${field.name}`;
    const rules = rulesOf(field);
    const notes = [comments.of(field)];
    let schema: JsonSchema;
    if (field.fieldKind === "list") {
      const list = direction === "request" ? listKeywords(where, rules) : { array: {}, item: undefined };
      if (direction === "request") notes.push(...valueKeywords(where, list.item).notes);
      schema = { type: "array", items: valueSchema(field, direction, true), ...list.array };
    } else if (field.fieldKind === "map") {
      const values: JsonSchema =
        field.mapKind === "message"
          ? ref(field.message, direction)
          : field.mapKind === "enum"
            ? enumSchema(field.enum)
            : scalarSchema(where, field.scalar, fieldContract(field).format);
      schema = { type: "object", additionalProperties: values };
    } else {
      if (direction === "request") notes.push(...valueKeywords(where, rules).notes);
      schema = valueSchema(field, direction, false);
    }
    // What the format says (scalarSchema) comes after what the comment says.
    const { description: formatNote, ...typed } = schema;
    if (typeof formatNote === "string") notes.push(formatNote);
    schema = typed;
    const description = notes.filter((note) => note !== undefined).join(" ");
    const plain = "$ref" in schema;
    return {
      // A $ref takes no siblings in every tool: wrap it when there is more to say.
      ...(plain && description !== "" ? { allOf: [schema] } : schema),
      ...(description === "" ? {} : { description }),
      ...(plain ? {} : { examples: [fieldExample(field, direction)] }),
    };
  }

  function fieldExample(field: DescField, direction: Direction): unknown {
    const rules = rulesOf(field);
    switch (field.fieldKind) {
      case "scalar":
        return scalarExample(field, field.scalar, rules, byKind);
      case "enum":
        return enumExample(field.enum);
      case "message":
        return example(field.message, direction);
      case "list": {
        const item = listKeywords(`${field.parent.typeName}.${field.name}`, rules).item;
        return [
          field.listKind === "message"
            ? example(field.message, direction)
            : field.listKind === "enum"
              ? enumExample(field.enum)
              : scalarExample(field, field.scalar, item, byKind),
        ];
      }
      case "map": {
        const text = fieldContract(field).example;
        if (text === undefined)
          throw new Error(`${field.parent.typeName}.${field.name}: a map without an example`);
        return JSON.parse(text) as unknown;
      }
    }
  }

  function example(
    message: DescMessage,
    direction: Direction,
    omitted: ReadonlySet<string> = new Set(),
  ): unknown {
    return Object.fromEntries(
      message.fields.filter((f) => !omitted.has(f.name)).map((f) => [f.jsonName, fieldExample(f, direction)]),
    );
  }

  return {
    ref,
    without: (message, omitted) => objectSchema(message, "request", omitted),
    field: fieldSchema,
    example,
    fieldExample,
    components,
  };
}

/** `schema`, or null. */
function orNull(schema: JsonSchema): JsonSchema {
  const { description, examples, ...value } = schema;
  const notes = {
    ...(description === undefined ? {} : { description }),
    ...(examples === undefined ? {} : { examples }),
  };
  const type = value["type"];
  if (typeof type === "string" && value["$ref"] === undefined) {
    const enumerated = value["enum"];
    return {
      ...value,
      type: [type, "null"],
      ...(Array.isArray(enumerated) ? { enum: [...(enumerated as unknown[]), null] } : {}),
      ...notes,
    };
  }
  return { anyOf: [value, { type: "null" }], ...notes };
}

function jsonNameOf(message: DescMessage, name: string): string {
  const field = message.fields.find((f) => f.name === name);
  if (field === undefined) throw new Error(`${message.typeName} has no field ${name}`);
  return field.jsonName;
}

/** Whether the edges print the field even at its zero value (implicit presence, lists, maps). */
function alwaysPrinted(field: DescField): boolean {
  if (field.fieldKind === "list" || field.fieldKind === "map") return true;
  return field.fieldKind !== "message" && field.presence !== FeatureSet_FieldPresence.EXPLICIT;
}

function scalarSchema(where: string, scalar: ScalarType, format: FieldFormat): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      if (format === FieldFormat.WALL_CLOCK)
        return {
          type: "string",
          pattern: wallClockPattern,
          description: "UTC wall clock, YYYY-MM-DDTHH:MM:SS.",
        };
      if (format === FieldFormat.DATE) return { type: "string", format: "date", pattern: datePattern };
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.INT32:
      return { type: "integer", format: "int32", ...int32Range };
    case ScalarType.UINT32:
      return { type: "integer", ...uint32Range };
    case ScalarType.DOUBLE:
      // Money is a JSON number with at most two decimals: the format names it, for tools.
      return format === FieldFormat.MONEY
        ? { type: "number", format: "money", description: "Major currency units, at most two decimals." }
        : { type: "number", format: "double" };
    case ScalarType.FLOAT:
      return { type: "number", format: "float" };
    default:
      throw new Error(`${where}: ${ScalarType[scalar]} is not described`);
  }
}

function enumSchema(desc: DescEnum): JsonSchema {
  return { type: "string", enum: desc.values.map((value) => value.name) };
}

function enumExample(desc: DescEnum): unknown {
  return desc.values.find((value) => value.number !== 0)?.name ?? desc.values[0]?.name;
}
