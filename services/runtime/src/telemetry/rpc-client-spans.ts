import type { Transport } from "@connectrpc/connect";
import { SpanKind, trace } from "@opentelemetry/api";
import { endRpcSpan, rpcAttributes, rpcSpanName, type RpcSystem } from "./rpc-span-attributes.js";
import type { ServiceTelemetry } from "./telemetry.js";
import { injectIntoHeaders, sampledOut, traceContextOf } from "./trace-context.js";

/**
 * A service's peer transport with a CLIENT span per unary call, child of the trace context bound
 * to the call's signal (its request's SERVER span; trace-context.ts), whose context travels to the peer in `traceparent` and
 * `tracestate`. `system` is what the calls travel as: `grpc` between processes, `connect_rpc` in
 * process. The transport itself when tracing is off. Streams pass untraced: no service calls a
 * peer's stream.
 */
export function withClientSpans(
  transport: Transport,
  telemetry: ServiceTelemetry,
  system: RpcSystem,
): Transport {
  if (!telemetry.enabled) return transport;
  const { tracer } = telemetry;
  return {
    async unary(method, signal, timeoutMs, header, input, values) {
      const parent = traceContextOf(signal);
      // Typed HeadersInit, a DOM type this project's lib setting does not declare.
      const headers = new Headers(header as ConstructorParameters<typeof Headers>[0]);
      if (sampledOut(parent)) {
        injectIntoHeaders(parent, headers);
        return transport.unary(method, signal, timeoutMs, headers, input, values);
      }
      const span = tracer.startSpan(
        rpcSpanName(method),
        { kind: SpanKind.CLIENT, attributes: rpcAttributes(method, system) },
        parent,
      );
      injectIntoHeaders(trace.setSpan(parent, span), headers);
      let failure: unknown;
      try {
        return await transport.unary(method, signal, timeoutMs, headers, input, values);
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        endRpcSpan(span, system, failure, "client");
      }
    },
    stream: (...args) => transport.stream(...args),
  };
}
