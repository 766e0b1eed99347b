/**
 * Prints a FileDescriptorProto as .proto source: messages, enums, oneofs, extension ranges
 * and extensions, without options.
 *
 * Why: no npm package ships `buf/validate/validate.proto`, but `@bufbuild/protovalidate` embeds
 * its descriptor. Printing that descriptor at build time gives buf a wire-identical source to
 * import (field numbers and types are all that the annotations' encoding depends on), and keeps
 * third-party text out of the repository (ADR 0002).
 */
import { isFieldSet } from "@bufbuild/protobuf";
import {
  FieldDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";

const scalarNames: Partial<Record<Type, string>> = {
  [Type.DOUBLE]: "double",
  [Type.FLOAT]: "float",
  [Type.INT64]: "int64",
  [Type.UINT64]: "uint64",
  [Type.INT32]: "int32",
  [Type.FIXED64]: "fixed64",
  [Type.FIXED32]: "fixed32",
  [Type.BOOL]: "bool",
  [Type.STRING]: "string",
  [Type.BYTES]: "bytes",
  [Type.UINT32]: "uint32",
  [Type.SFIXED32]: "sfixed32",
  [Type.SFIXED64]: "sfixed64",
  [Type.SINT32]: "sint32",
  [Type.SINT64]: "sint64",
};

function typeName(field: FieldDescriptorProto): string {
  const scalar = scalarNames[field.type];
  if (scalar !== undefined) return scalar;
  if (field.type === Type.GROUP) throw new Error(`groups are not supported (${field.name})`);
  return field.typeName; // fully qualified, with the leading dot
}

/** The oneof a field belongs to; proto2 descriptors report unset indexes as 0, so ask presence. */
function oneofOf(field: FieldDescriptorProto): number | undefined {
  return isFieldSet(field, FieldDescriptorProtoSchema.field.oneofIndex) ? field.oneofIndex : undefined;
}

function fieldLine(field: FieldDescriptorProto, inOneof: boolean): string {
  const label = inOneof
    ? ""
    : field.label === Label.REPEATED
      ? "repeated "
      : field.label === Label.REQUIRED
        ? "required "
        : "optional ";
  return `${label}${typeName(field)} ${field.name} = ${field.number};`;
}

function printEnum(e: EnumDescriptorProto, indent: string): string[] {
  return [
    `${indent}enum ${e.name} {`,
    ...e.value.map((v) => `${indent}  ${v.name} = ${v.number};`),
    `${indent}}`,
  ];
}

function printMessage(m: DescriptorProto, indent: string): string[] {
  const inner = `${indent}  `;
  const lines = [`${indent}message ${m.name} {`];
  for (const nested of m.nestedType) {
    if (nested.options?.mapEntry === true) throw new Error(`map fields are not supported (${m.name})`);
    lines.push(...printMessage(nested, inner));
  }
  for (const e of m.enumType) lines.push(...printEnum(e, inner));
  m.field.filter((f) => oneofOf(f) === undefined).forEach((f) => lines.push(inner + fieldLine(f, false)));
  m.oneofDecl.forEach((oneof, index) => {
    lines.push(`${inner}oneof ${oneof.name} {`);
    m.field.filter((f) => oneofOf(f) === index).forEach((f) => lines.push(`${inner}  ${fieldLine(f, true)}`));
    lines.push(`${inner}}`);
  });
  for (const range of m.extensionRange) {
    const end = range.end >= 536870912 ? "max" : String(range.end - 1);
    lines.push(`${inner}extensions ${range.start} to ${end};`);
  }
  for (const range of m.reservedRange) lines.push(`${inner}reserved ${range.start} to ${range.end - 1};`);
  lines.push(`${indent}}`);
  return lines;
}

export function printProto(file: FileDescriptorProto): string {
  if (file.syntax !== "" && file.syntax !== "proto2")
    throw new Error(`only proto2 is supported, got ${file.syntax}`);
  const lines = [
    "// Generated at build time from the descriptor embedded in @bufbuild/protovalidate. Do not edit.",
    'syntax = "proto2";',
    "",
    `package ${file.package};`,
    "",
    ...file.dependency.map((d) => `import "${d}";`),
    "",
  ];
  for (const m of file.messageType) lines.push(...printMessage(m, ""), "");
  for (const e of file.enumType) lines.push(...printEnum(e, ""), "");
  for (const ext of file.extension) {
    lines.push(`extend ${ext.extendee} {`, `  ${fieldLine(ext, false)}`, "}", "");
  }
  return lines.join("\n");
}
