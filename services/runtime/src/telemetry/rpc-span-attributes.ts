/**
 * RPC spans per the semantic conventions: named `<package.Service>/<Method>`, with `rpc.system`
 * (`grpc` on gRPC, `connect_rpc` otherwise, in process included), `rpc.service`, `rpc.method` and
 * the outcome (`rpc.grpc.status_code`, or `rpc.connect_rpc.error_code` on a failed Connect call).
 * No message, header or body is recorded: they may hold credentials or personal data.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { SpanStatusCode, type Attributes, type Span } from "@opentelemetry/api";

export type RpcSystem = "grpc" | "connect_rpc";

/**
 * The codes that make a server span an error: the server's own faults, as the conventions list
 * them for gRPC. A client's mistake (INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, …) is a
 * correct answer. A client span is an error on any code but OK.
 */
export const serverFaults: ReadonlySet<Code> = new Set([
  Code.Unknown,
  Code.DeadlineExceeded,
  Code.Unimplemented,
  Code.Internal,
  Code.Unavailable,
  Code.DataLoss,
]);

export function rpcSpanName(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}

export function rpcAttributes(method: DescMethod, system: RpcSystem): Attributes {
  return {
    "rpc.system": system,
    "rpc.service": method.parent.typeName,
    "rpc.method": method.name,
  };
}

export function endRpcSpan(span: Span, system: RpcSystem, error: unknown, side: "server" | "client"): void {
  if (error === undefined) {
    if (system === "grpc") span.setAttribute("rpc.grpc.status_code", 0);
  } else {
    const code = ConnectError.from(error).code;
    if (system === "grpc") span.setAttribute("rpc.grpc.status_code", code);
    else span.setAttribute("rpc.connect_rpc.error_code", codeToString(code));
    if (side === "client" || serverFaults.has(code)) {
      // The code's name only: an error message may quote what the client sent.
      span.setStatus({ code: SpanStatusCode.ERROR, message: codeToString(code) });
    }
  }
  span.end();
}
