/**
 * Stages the third-party .proto files our contract imports under `.build/proto-deps`, from npm
 * packages, at build time: googleapis' HTTP annotations from `google-proto-files`, the standard
 * gRPC health protocol from `grpc-health-check`, the gRPC server reflection protocol (v1 and
 * v1alpha, which older clients still ask for) from `@grpc/reflection`, and
 * `buf/validate/validate.proto` printed from the descriptor embedded in `@bufbuild/protovalidate`.
 * Nothing third-party is committed.
 */
import { mkdirSync, copyFileSync, writeFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { file_buf_validate_validate } from "@bufbuild/protovalidate/gen/buf/validate/validate_pb.js";
import { printProto } from "./print-proto.js";

const googleApiFiles = ["google/api/annotations.proto", "google/api/http.proto", "google/api/httpbody.proto"];
const reflectionFiles = ["grpc/reflection/v1/reflection.proto", "grpc/reflection/v1alpha/reflection.proto"];

function packageDir(name: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

export function stageProtoDeps(root: string): string {
  const out = join(root, ".build", "proto-deps");
  rmSync(out, { recursive: true, force: true });
  const googleProtos = packageDir("google-proto-files");
  for (const file of googleApiFiles) {
    mkdirSync(dirname(join(out, file)), { recursive: true });
    copyFileSync(join(googleProtos, file), join(out, file));
  }
  const health = join(out, "grpc", "health", "v1", "health.proto");
  mkdirSync(dirname(health), { recursive: true });
  copyFileSync(join(packageDir("grpc-health-check"), "proto", "health", "v1", "health.proto"), health);
  const reflectionProtos = join(packageDir("@grpc/reflection"), "build", "proto");
  for (const file of reflectionFiles) {
    mkdirSync(dirname(join(out, file)), { recursive: true });
    copyFileSync(join(reflectionProtos, file), join(out, file));
  }
  const validate = join(out, "buf", "validate", "validate.proto");
  mkdirSync(dirname(validate), { recursive: true });
  writeFileSync(validate, printProto(file_buf_validate_validate.proto));
  return out;
}
