import type { JsonObject } from "@bufbuild/protobuf";

/** An Envoy extension's typed configuration: its `@type` URL, then its fields. */
export function typed(type: string, config: JsonObject): JsonObject {
  return { "@type": `type.googleapis.com/${type}`, ...config };
}
