import { create } from "@bufbuild/protobuf";
import type { ServiceRegistrar } from "../transport/in-process-transport.js";
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthCheckResponseSchema,
  HealthListResponseSchema,
} from "../../gen/grpc/health/v1/health_pb.js";

/**
 * The standard gRPC health protocol (grpc.health.v1), for Kubernetes gRPC probes and gRPC
 * clients. The empty service name asks about the whole server; a service's full name asks
 * about that service.
 */
export function registerHealthService(
  router: ServiceRegistrar,
  serviceNames: readonly string[],
  isReady: () => boolean,
): void {
  const statusOf = (service: string): ServingStatus => {
    if (service !== "" && !serviceNames.includes(service)) return ServingStatus.SERVICE_UNKNOWN;
    return isReady() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  };
  router.service(Health, {
    check(req) {
      return create(HealthCheckResponseSchema, { status: statusOf(req.service) });
    },
    list() {
      const statuses: Record<string, ReturnType<typeof create<typeof HealthCheckResponseSchema>>> = {};
      for (const name of ["", ...serviceNames])
        statuses[name] = create(HealthCheckResponseSchema, { status: statusOf(name) });
      return create(HealthListResponseSchema, { statuses });
    },
    async *watch(req, ctx) {
      let last: ServingStatus | undefined;
      while (!ctx.signal.aborted) {
        const status = statusOf(req.service);
        if (status !== last) {
          last = status;
          yield create(HealthCheckResponseSchema, { status });
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    },
  });
}
