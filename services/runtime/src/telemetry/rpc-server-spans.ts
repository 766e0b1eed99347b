import type { DescService } from "@bufbuild/protobuf";
import { context, SpanKind, trace, type Tracer } from "@opentelemetry/api";
import type { Interceptor } from "@connectrpc/connect";
import { endRpcSpan, rpcAttributes, rpcSpanName, type RpcSystem } from "./rpc-span-attributes.js";
import type { Telemetry } from "./telemetry.js";
import { contextFromHeaders } from "./trace-context.js";

/**
 * The outermost server interceptor when tracing is on: a SERVER span per call, child of the
 * context the caller sent (`traceparent` from Envoy, the local edge or a peer) and active while
 * the handler runs, so that its peer calls and log lines belong to it. `tracerFor` names the
 * tracer of the service that owns the method (one host serves every module in embedded mode);
 * services it gives none for (gRPC health, probed every few seconds) are not traced.
 */
export function createServerSpanInterceptor(
  tracerFor: (serviceTypeName: string) => Tracer | undefined,
): Interceptor {
  return (next) => async (req) => {
    const tracer = tracerFor(req.service.typeName);
    if (tracer === undefined) return next(req);
    const system: RpcSystem = req.header.get("content-type")?.startsWith("application/grpc")
      ? "grpc"
      : "connect_rpc";
    const parent = contextFromHeaders(req.header);
    const span = tracer.startSpan(
      rpcSpanName(req.method),
      { kind: SpanKind.SERVER, attributes: rpcAttributes(req.method, system) },
      parent,
    );
    let failure: unknown;
    try {
      return await context.with(trace.setSpan(parent, span), () => next(req));
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      endRpcSpan(span, system, failure, "server");
    }
  };
}

/**
 * Which tracer serves each RPC service of `modules` (each module's own), for a host's server
 * spans; undefined when tracing is off, so that the host adds no interceptor at all.
 */
export function tracersByService(
  modules: readonly { readonly name: string; readonly services: readonly DescService[] }[],
  telemetry: Telemetry,
): ((serviceTypeName: string) => Tracer | undefined) | undefined {
  if (!telemetry.enabled) return undefined;
  const tracers = new Map<string, Tracer>();
  for (const module of modules) {
    const { tracer } = telemetry.forService(module.name);
    for (const service of module.services) tracers.set(service.typeName, tracer);
  }
  return (typeName) => tracers.get(typeName);
}
