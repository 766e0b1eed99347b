/**
 * Hosts one or more Connect services: the same routes and interceptors serve a socket
 * (Connect, gRPC and gRPC-Web over h2c and HTTP/1.1; unary Connect and gRPC calls on a short
 * path of our own, everything else through Connect's Node adapter) and, in embedded mode, an
 * in-process transport that the local edge and the other services call without a network hop.
 * Beside the services it is given, every host serves gRPC health and server reflection, the
 * probes `/healthz` and `/readyz`, the plain HTTP pages it is given (the `web` process's public
 * site), and the JSON 404 for any other path.
 */
import type { DescService } from "@bufbuild/protobuf";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { setMaxListeners } from "node:events";
import { createAccessInterceptor } from "../access/access-interceptor.js";
import { createErrorInterceptor } from "../errors/error-interceptor.js";
import type { RequestTrust } from "../identity/request-trust.js";
import type { RevokedAccounts } from "../identity/revoked-accounts.js";
import type { Logger } from "../logging/logger.js";
import { createServerTelemetryInterceptor, type RpcServerTelemetry } from "../telemetry/rpc-server-spans.js";
import { createValidationInterceptor } from "../validation/validation-interceptor.js";
import {
  createDualProtocolServer,
  type DualProtocolServer,
  type DualRequest,
  type DualRequestHandler,
  type DualResponse,
} from "./dual-protocol-server.js";
import { errorBody, noRouteMessage, sendError } from "./error-body.js";
import { registerHealthService } from "./health-service.js";
import { createUnaryRpcHandler } from "./unary-rpc-handler.js";
import { createInProcessTransport, type ServiceRegistrar } from "../transport/in-process-transport.js";
import { createReflectionRoutes, reflectionServices } from "../reflection/reflection-service.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";

/** What a service contributes to a host: its RPC implementations. */
export interface ServiceRoutes {
  readonly services: readonly DescService[];
  register(router: ServiceRegistrar): void;
}

export interface ServiceHostOptions {
  readonly routes: readonly ServiceRoutes[];
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /** Which requests may assert an identity or call internal methods, per service served. */
  readonly trust: RequestTrust;
  /** Deleted accounts, whose tokens count as no identity (identity/revoked-accounts.ts). */
  readonly revoked: RevokedAccounts;
  /** Readiness for `/readyz` and gRPC health: dependencies reachable, start-up work done. */
  readonly isReady: () => boolean;
  /**
   * The tracer and meter of the service that owns an RPC service (telemetry/rpc-server-spans.ts
   * `serverTelemetryByService`); absent when telemetry is off: no span, no metric, no
   * interceptor.
   */
  readonly telemetry?: ((serviceTypeName: string) => RpcServerTelemetry | undefined) | undefined;
  /** Plain HTTP pages served beside the RPCs (web-process.ts); none by default. */
  readonly pages?: HttpPages | undefined;
}

/**
 * Answers a plain HTTP request for one of its paths (`pathname`: the path without the query)
 * and returns true, or returns false for any other path.
 */
export type HttpPages = (req: DualRequest, res: DualResponse, pathname: string) => boolean;

export interface ServiceHost {
  readonly handler: DualRequestHandler;
  /** An in-process transport through the same interceptors and handlers (embedded mode, tests). */
  readonly transport: Transport;
  listen(port: number, host: string): Promise<number>;
  /**
   * Stops accepting, lets requests in flight finish for up to `graceMs`, then aborts the
   * signals of whatever still runs (network and in-process calls alike) and cuts connections.
   */
  close(graceMs?: number): Promise<void>;
}

/** Each store and peer call of a handler listens to its signal while it runs (no leak). */
const unlimitedSignalListeners: Interceptor = (next) => (req) => {
  setMaxListeners(0, req.signal);
  return next(req);
};

/**
 * The protocol services every host serves beside its own, which answer without credentials:
 * gRPC health, since probes carry none, and server reflection, since it tells only the schema
 * and every method it describes still demands its own credential (ADR 0012).
 * Nothing else is open.
 */
const openServices: readonly string[] = [Health.typeName, ...reflectionServices.map((s) => s.typeName)];

export function createServiceHost(options: ServiceHostOptions): ServiceHost {
  const interceptors: Interceptor[] = [
    ...(options.telemetry === undefined ? [] : [createServerTelemetryInterceptor(options.telemetry)]),
    createErrorInterceptor(options.logger),
    createAccessInterceptor(options.trust, options.revoked, options.logger, openServices),
    createValidationInterceptor(),
  ];
  const services = options.routes.flatMap((r) => r.services);
  const serviceNames = services.map((s) => s.typeName);
  const reflection = createReflectionRoutes([...services, Health]);
  const routes = (router: ServiceRegistrar): void => {
    for (const r of options.routes) r.register(router);
    registerHealthService(router, serviceNames, options.isReady);
    reflection(router);
  };
  const shutdown = new AbortController();
  // Every call in flight listens to it until it ends: no listener limit applies.
  setMaxListeners(0, shutdown.signal);
  const unary = createUnaryRpcHandler({
    routes,
    interceptors,
    readMaxBytes: options.maxBodyBytes,
    shutdownSignal: shutdown.signal,
    fallback: connectNodeAdapter({
      routes,
      // Connect's own path (streams, gRPC-Web) makes the call's signal itself: lift its limit
      // here, as the short path and the in-process transport do for theirs.
      interceptors: [unlimitedSignalListeners, ...interceptors],
      readMaxBytes: options.maxBodyBytes,
      shutdownSignal: shutdown.signal,
      fallback: (req, res) => answerHttp(req, res, options.isReady, options.pages),
    }),
  });
  const handler = unary.handler;
  const transport = createInProcessTransport(routes, interceptors, shutdown.signal);
  let server: DualProtocolServer | undefined;
  return {
    handler,
    transport,
    listen(port, host) {
      server = createDualProtocolServer(handler, unary.takeStream);
      return server.listen(port, host);
    },
    async close(graceMs = 5_000) {
      const cut = setTimeout(() => shutdown.abort(), graceMs);
      try {
        await server?.close(graceMs);
      } finally {
        clearTimeout(cut);
        shutdown.abort();
      }
    },
  };
}

/**
 * A plain HTTP request: the Kubernetes probes, `/healthz` (the process answers) and `/readyz`
 * (it can serve), then the host's pages, then the one JSON 404 of both edges.
 */
function answerHttp(
  req: DualRequest,
  res: DualResponse,
  isReady: () => boolean,
  pages: HttpPages | undefined,
): void {
  const path = (req.url ?? "").split("?")[0] ?? "";
  if (path === "/healthz" || path === "/readyz") {
    const ready = path === "/healthz" || isReady();
    const body = path === "/healthz" ? { status: "ok" } : { status: ready ? "ready" : "not ready" };
    res.writeHead(ready ? 200 : 503, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
    return;
  }
  if (pages?.(req, res, path) === true) return;
  sendError(res, errorBody(404, "NOT_FOUND", noRouteMessage));
}
