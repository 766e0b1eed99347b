import type { DescService } from "@bufbuild/protobuf";
import { SpanKind, trace, type Histogram, type Span, type Tracer } from "@opentelemetry/api";
import type { Interceptor } from "@connectrpc/connect";
import { performance } from "node:perf_hooks";
import { setSignalDeadline, signalDeadline } from "../transport/deadline-sweeper.js";
import { endRpcSpan, rpcAttributes, rpcSpanName, type RpcSystem } from "./rpc-span-attributes.js";
import { underOwnSignal } from "./own-signal.js";
import { createRpcServerDuration, rpcOutcomeAttributes } from "./rpc-server-metrics.js";
import type { Telemetry } from "./telemetry.js";
import {
  bindTraceContext,
  boundTraceContext,
  contextFromHeaders,
  sampledOut,
  unbindTraceContext,
} from "./trace-context.js";

/** What the server interceptor records a call with: the owning service's tracer and histogram. */
export interface RpcServerTelemetry {
  /** Absent when tracing is off. */
  readonly tracer: Tracer | undefined;
  /** `rpc.server.call.duration` on the service's meter (rpc-server-metrics.ts); absent when off. */
  readonly duration: Histogram | undefined;
}

/**
 * The outermost server interceptor when tracing or metrics are on: a SERVER span per call,
 * child of the context the caller sent (`traceparent` from Envoy, the local edge or a peer) and
 * bound to the call's signal while the handler runs (trace-context.ts), so that its store and
 * peer calls, the events it records and its log lines belong to it; and the call's duration and
 * outcome in `rpc.server.call.duration`. `telemetryFor` names the telemetry of the service that
 * owns the method (one host serves every module in embedded mode); services it gives none for
 * (gRPC health, probed every few seconds) are neither traced nor measured.
 */
export function createServerTelemetryInterceptor(
  telemetryFor: (serviceTypeName: string) => RpcServerTelemetry | undefined,
): Interceptor {
  return (next) => (req) => {
    const telemetry = telemetryFor(req.service.typeName);
    if (telemetry === undefined) return next(req);
    const { tracer, duration } = telemetry;
    const started = duration === undefined ? 0 : performance.now();
    // A caller in this process whose trace its sampler left out (the edge, a peer) handed its
    // signal on as is: no span here either, and the context bound to the signal is already
    // what this call's store and peer calls and events carry on. No header to read.
    const inherited = tracer === undefined ? undefined : boundTraceContext(req.signal);
    if (tracer === undefined || (inherited !== undefined && sampledOut(inherited))) {
      if (duration === undefined) return next(req);
      return measured(next, req, { system: rpcSystemOf(req), duration, started }, undefined);
    }
    const call: MeasuredCall = { system: rpcSystemOf(req), duration, started };
    const parent = contextFromHeaders(req.header);
    // Under a parent its sampler left out, no span: the parent's context travels on instead.
    const span = sampledOut(parent)
      ? undefined
      : tracer.startSpan(
          rpcSpanName(req.method),
          { kind: SpanKind.SERVER, attributes: rpcAttributes(req.method, call.system) },
          parent,
        );
    const active = span === undefined ? parent : trace.setSpan(parent, span);
    if (inherited === undefined) {
      return measured(
        async (bound) => {
          bindTraceContext(bound.signal, active);
          try {
            return await next(bound);
          } finally {
            unbindTraceContext(bound.signal);
          }
        },
        req,
        call,
        span,
      );
    }
    // A caller in this process handed its own signal on as is (the in-process transport):
    // binding this call's span there would make it the parent of what the caller does next.
    return measured(
      (shared) =>
        underOwnSignal(shared.signal, (signal) => {
          // A reused signal (own-signal.ts): the deadline of this call, or none.
          setSignalDeadline(signal, signalDeadline(shared.signal));
          bindTraceContext(signal, active);
          return next({ ...shared, signal });
        }),
      req,
      call,
      span,
    );
  };
}

/** One call through the interceptor chain: Connect's own, unary or streaming. */
type Next = Parameters<Interceptor>[0];

/** The protocol a call came in on, from its content type. */
function rpcSystemOf(req: Parameters<Next>[0]): RpcSystem {
  return req.header.get("content-type")?.startsWith("application/grpc") ? "grpc" : "connect_rpc";
}

/** How one call is recorded: its protocol, and its duration's histogram and start when metered. */
interface MeasuredCall {
  readonly system: RpcSystem;
  readonly duration: Histogram | undefined;
  readonly started: number;
}

/** `run(req)`, its SERVER span (if one) ended and its duration recorded with its outcome. */
async function measured(
  run: Next,
  req: Parameters<Next>[0],
  call: MeasuredCall,
  span: Span | undefined,
): ReturnType<Next> {
  if (call.duration === undefined && span === undefined) return run(req);
  let failure: unknown;
  try {
    return await run(req);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    if (span !== undefined) endRpcSpan(span, call.system, failure, "server");
    call.duration?.record(
      (performance.now() - call.started) / 1000,
      rpcOutcomeAttributes(req.method, call.system, failure),
    );
  }
}

/**
 * What each RPC service of `modules` is recorded with (its module's own tracer and meter), for a
 * host's server interceptor; undefined when telemetry is off, so that the host adds no
 * interceptor at all.
 */
export function serverTelemetryByService(
  modules: readonly { readonly name: string; readonly services: readonly DescService[] }[],
  telemetry: Telemetry,
): ((serviceTypeName: string) => RpcServerTelemetry | undefined) | undefined {
  if (!telemetry.enabled) return undefined;
  const byService = new Map<string, RpcServerTelemetry>();
  for (const module of modules) {
    const own = telemetry.forService(module.name);
    const recorded: RpcServerTelemetry = {
      tracer: own.enabled ? own.tracer : undefined,
      duration: own.metered ? createRpcServerDuration(own.meter) : undefined,
    };
    for (const service of module.services) byService.set(service.typeName, recorded);
  }
  return (typeName) => byService.get(typeName);
}
