/**
 * What gRPC server reflection answers from: the file descriptors of the services a host serves,
 * with every file they import, transitively (buf/validate, google/api, commerce/options,
 * google/protobuf …), so that a client that resolves a method from it can also resolve its
 * messages and the options written on them. The descriptors are the ones the code was generated
 * with (protoc-gen-es embeds them), so what a client learns is exactly what the host decodes.
 */
import { toBinary, type DescFile, type DescService } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

export interface DescriptorIndex {
  /** The full names of the services, in the order given. */
  readonly serviceNames: readonly string[];
  /** By the file's path, as imports name it: `commerce/auth/v1/auth.proto`. */
  fileByName(name: string): DescFile | undefined;
  /**
   * The file that declares a fully-qualified symbol: a service, method, message, field, oneof,
   * enum, enum value or extension (`commerce.auth.v1.AuthService.Login`).
   */
  fileContainingSymbol(symbol: string): DescFile | undefined;
  /** The file that declares extension `number` of message `extendee`. */
  fileContainingExtension(extendee: string, number: number): DescFile | undefined;
  /** The numbers of the known extensions of message `typeName`; undefined for an unknown message. */
  extensionNumbersOf(typeName: string): readonly number[] | undefined;
  /** `file` first, then every file it imports, transitively, each once. */
  withDependencies(file: DescFile): readonly DescFile[];
  /** The file's serialized `google.protobuf.FileDescriptorProto`. */
  encoded(file: DescFile): Uint8Array;
}

export function createDescriptorIndex(services: readonly DescService[]): DescriptorIndex {
  const files = new Map<string, DescFile>();
  const symbols = new Map<string, DescFile>();
  const extensions = new Map<string, Map<number, DescFile>>();
  const messages = new Set<string>();
  const pending = services.map((service) => service.file);
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file.proto.name)) continue;
    files.set(file.proto.name, file);
    pending.push(...file.dependencies);
    for (const type of nestedTypes(file)) {
      symbols.set(type.typeName, file);
      switch (type.kind) {
        case "message":
          messages.add(type.typeName);
          for (const member of [...type.fields, ...type.oneofs])
            symbols.set(`${type.typeName}.${member.name}`, file);
          break;
        case "enum": {
          // Enum values are scoped like C++ enumerators: siblings of their enum, not its children.
          const scope = type.typeName.slice(0, type.typeName.length - type.name.length);
          for (const value of type.values) symbols.set(`${scope}${value.name}`, file);
          break;
        }
        case "service":
          for (const method of type.methods) symbols.set(`${type.typeName}.${method.name}`, file);
          break;
        case "extension": {
          const byNumber = extensions.get(type.extendee.typeName) ?? new Map<number, DescFile>();
          byNumber.set(type.number, file);
          extensions.set(type.extendee.typeName, byNumber);
          break;
        }
      }
    }
  }
  const encodings = new Map<DescFile, Uint8Array>();
  return {
    serviceNames: services.map((service) => service.typeName),
    fileByName: (name) => files.get(name),
    fileContainingSymbol: (symbol) => symbols.get(symbol),
    fileContainingExtension: (extendee, number) => extensions.get(extendee)?.get(number),
    extensionNumbersOf(typeName) {
      if (!messages.has(typeName)) return undefined;
      return [...(extensions.get(typeName)?.keys() ?? [])].sort((a, b) => a - b);
    },
    withDependencies(file) {
      const seen = new Map<string, DescFile>();
      const queue = [file];
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (seen.has(next.proto.name)) continue;
        seen.set(next.proto.name, next);
        queue.push(...next.dependencies);
      }
      return [...seen.values()];
    },
    encoded(file) {
      let bytes = encodings.get(file);
      if (bytes === undefined) {
        bytes = toBinary(FileDescriptorProtoSchema, file.proto);
        encodings.set(file, bytes);
      }
      return bytes;
    },
  };
}
