/**
 * The comments written in proto/, for the API's description. The generated code the edges run
 * carries descriptors without source information, so the comments are read from a descriptor set
 * that buf builds with it: an element is found there by its full name, and its comment by its
 * path in the file (the numbers of `google.protobuf.FileDescriptorProto`'s fields and the
 * element's index at each level, as `SourceCodeInfo` locates it).
 */
import {
  createFileRegistry,
  fromBinary,
  type DescField,
  type DescFile,
  type DescMessage,
  type DescMethod,
  type DescService,
} from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

export type Commented = DescService | DescMethod | DescMessage | DescField;

/** The leading comment of an element, one paragraph per blank-line-separated block. */
export interface ProtoComments {
  of(desc: Commented): string | undefined;
}

// Field numbers of descriptor.proto that SourceCodeInfo paths are made of.
const fileMessageType = 4;
const fileService = 6;
const messageField = 2;
const messageNestedType = 3;
const serviceMethod = 2;

/** The path of a message in its file: top-level index, then nested indexes. */
function messagePath(message: DescMessage): number[] {
  const parent = message.parent;
  if (parent === undefined) return [fileMessageType, message.file.messages.indexOf(message)];
  return [...messagePath(parent), messageNestedType, parent.nestedMessages.indexOf(message)];
}

/** The file an element is declared in. */
function fileOf(desc: Commented): DescFile {
  return desc.kind === "field" || desc.kind === "rpc" ? desc.parent.file : desc.file;
}

function pathOf(desc: Commented): number[] {
  switch (desc.kind) {
    case "message":
      return messagePath(desc);
    case "field":
      return [...messagePath(desc.parent), messageField, desc.parent.fields.indexOf(desc)];
    case "service":
      return [fileService, desc.file.services.indexOf(desc)];
    case "rpc":
      return [...pathOf(desc.parent), serviceMethod, desc.parent.methods.indexOf(desc)];
  }
}

export function createProtoComments(descriptorSetWithSourceInfo: Uint8Array): ProtoComments {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSetWithSourceInfo));
  const sourceOf = (desc: Commented): Commented | undefined => {
    switch (desc.kind) {
      case "service":
        return registry.getService(desc.typeName);
      case "message":
        return registry.getMessage(desc.typeName);
      case "rpc":
        return registry.getService(desc.parent.typeName)?.methods.find((m) => m.name === desc.name);
      case "field":
        return registry.getMessage(desc.parent.typeName)?.fields.find((f) => f.name === desc.name);
    }
  };
  return {
    of(desc) {
      const source = sourceOf(desc);
      if (source === undefined) throw new Error(`${desc.toString()} is not in the descriptor set`);
      const path = pathOf(source).join(",");
      const location = fileOf(source).proto.sourceCodeInfo?.location.find((l) => l.path.join(",") === path);
      const text = location?.leadingComments;
      if (text === undefined || text.trim() === "") return undefined;
      // Proto comments wrap at 100 columns; a description reads as prose.
      const paragraphs = text
        .split(/\n\s*\n/)
        .map((block) => block.replace(/\s*\n\s*/g, " ").trim())
        .filter((block) => block !== "");
      return paragraphs.length === 0 ? undefined : paragraphs.join("\n\n");
    },
  };
}
