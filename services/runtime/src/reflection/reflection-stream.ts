/**
 * The answers of one `ServerReflectionInfo` stream. v1 and v1alpha of the protocol have the same
 * fields under two package names, so the questions and answers here are plain shapes that
 * both versions' messages fit, and each version's handler wraps them in its own messages.
 */
import { Code } from "@connectrpc/connect";
import type { DescFile } from "@bufbuild/protobuf";
import type { DescriptorIndex } from "./descriptor-index.js";

/** `ServerReflectionRequest.message_request`, in either version. */
export type ReflectionQuestion =
  | { readonly case: "fileByFilename"; readonly value: string }
  | { readonly case: "fileContainingSymbol"; readonly value: string }
  | {
      readonly case: "fileContainingExtension";
      readonly value: { readonly containingType: string; readonly extensionNumber: number };
    }
  | { readonly case: "allExtensionNumbersOfType"; readonly value: string }
  | { readonly case: "listServices"; readonly value: string }
  | { readonly case: undefined; readonly value?: undefined };

/** `ServerReflectionResponse.message_response`, in either version. */
export type ReflectionAnswer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

export interface ReflectionStream {
  answer(question: ReflectionQuestion): ReflectionAnswer;
}

/**
 * A file is sent with every file it imports, transitively, so that one answer is enough to
 * resolve it; on one stream each file is sent once (the client keeps what it got), but the file
 * asked for always is.
 */
export function createReflectionStream(index: DescriptorIndex): ReflectionStream {
  const sent = new Set<string>();
  const files = (file: DescFile): ReflectionAnswer => {
    const fileDescriptorProto: Uint8Array[] = [];
    for (const each of index.withDependencies(file)) {
      if (each !== file && sent.has(each.proto.name)) continue;
      sent.add(each.proto.name);
      fileDescriptorProto.push(index.encoded(each));
    }
    return { case: "fileDescriptorResponse", value: { fileDescriptorProto } };
  };
  return {
    answer(question) {
      switch (question.case) {
        case "listServices":
          return {
            case: "listServicesResponse",
            value: { service: index.serviceNames.map((name) => ({ name })) },
          };
        case "fileByFilename": {
          const file = index.fileByName(question.value);
          return file === undefined ? notFound(`file not found: ${question.value}`) : files(file);
        }
        case "fileContainingSymbol": {
          const file = index.fileContainingSymbol(question.value);
          return file === undefined ? notFound(`symbol not found: ${question.value}`) : files(file);
        }
        case "fileContainingExtension": {
          const { containingType, extensionNumber } = question.value;
          const file = index.fileContainingExtension(containingType, extensionNumber);
          return file === undefined
            ? notFound(`extension not found: ${containingType} ${extensionNumber}`)
            : files(file);
        }
        case "allExtensionNumbersOfType": {
          const numbers = index.extensionNumbersOf(question.value);
          return numbers === undefined
            ? notFound(`type not found: ${question.value}`)
            : {
                case: "allExtensionNumbersResponse",
                value: { baseTypeName: question.value, extensionNumber: [...numbers] },
              };
        }
        case undefined:
          return {
            case: "errorResponse",
            value: { errorCode: Code.InvalidArgument, errorMessage: "the request asks nothing" },
          };
      }
    },
  };
}

function notFound(errorMessage: string): ReflectionAnswer {
  return { case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage } };
}
