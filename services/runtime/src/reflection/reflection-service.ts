/**
 * The gRPC server reflection protocol, so that internal clients (grpcurl, `buf curl`, a gRPC
 * client of another team) discover a port's services and messages without our .proto files.
 * Both versions are served: `grpc.reflection.v1` and `grpc.reflection.v1alpha`, which older
 * clients still ask for first. Reflection reveals the schema and nothing else; the host lets it
 * answer without credentials while every method it describes keeps its own access rule
 * (ADR 0012).
 */
import { create, type DescService } from "@bufbuild/protobuf";
import type { ServiceRegistrar } from "../transport/in-process-transport.js";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import { createDescriptorIndex } from "./descriptor-index.js";
import { createReflectionStream } from "./reflection-stream.js";

/** The reflection services themselves, which a host lists and lets anyone call. */
export const reflectionServices: readonly DescService[] = [v1.ServerReflection, v1alpha.ServerReflection];

/**
 * Both versions' routes, describing `services` (those the host serves beside them) and the
 * reflection services themselves. The index is built once, however often the routes are
 * registered (the host registers them on each of its paths).
 */
export function createReflectionRoutes(services: readonly DescService[]): (router: ServiceRegistrar) => void {
  const index = createDescriptorIndex([...services, ...reflectionServices]);
  return (router) => {
    router.service(v1.ServerReflection, {
      async *serverReflectionInfo(requests) {
        const stream = createReflectionStream(index);
        for await (const request of requests) {
          yield create(v1.ServerReflectionResponseSchema, {
            validHost: request.host,
            originalRequest: request,
            messageResponse: stream.answer(request.messageRequest),
          });
        }
      },
    });
    router.service(v1alpha.ServerReflection, {
      async *serverReflectionInfo(requests) {
        const stream = createReflectionStream(index);
        for await (const request of requests) {
          yield create(v1alpha.ServerReflectionResponseSchema, {
            validHost: request.host,
            originalRequest: request,
            messageResponse: stream.answer(request.messageRequest),
          });
        }
      },
    });
  };
}
