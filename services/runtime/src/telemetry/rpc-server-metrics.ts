/**
 * The RED metrics of the RPCs a service serves, as one histogram per the semantic conventions
 * (1.45 of the JavaScript package): `rpc.server.call.duration` in seconds. Its count is the
 * request rate, the count of points with `error.type` the error rate, the buckets the
 * durations. Attributes: the server span's (`rpc.system`, `rpc.service`, `rpc.method`, and
 * `rpc.grpc.status_code` on gRPC or `rpc.connect_rpc.error_code` on a failed Connect call),
 * plus `error.type`, the code's name (`NOT_FOUND`), on any outcome but OK.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import type { Attributes, Histogram, Meter } from "@opentelemetry/api";
import { durationBucketsSeconds } from "./duration-buckets.js";
import { rpcAttributes, type RpcSystem } from "./rpc-span-attributes.js";

export function createRpcServerDuration(meter: Meter): Histogram {
  return meter.createHistogram("rpc.server.call.duration", {
    description: "Duration of the RPCs this service served",
    unit: "s",
    advice: { explicitBucketBoundaries: [...durationBucketsSeconds] },
  });
}

/** The attributes of one served call that ended with `error` (undefined: OK). */
export function rpcOutcomeAttributes(method: DescMethod, system: RpcSystem, error: unknown): Attributes {
  const attributes = rpcAttributes(method, system);
  if (error === undefined) {
    if (system === "grpc") attributes["rpc.grpc.status_code"] = 0;
    return attributes;
  }
  const code = ConnectError.from(error).code;
  const name = codeToString(code);
  if (system === "grpc") attributes["rpc.grpc.status_code"] = code;
  else attributes["rpc.connect_rpc.error_code"] = name;
  attributes["error.type"] = name.toUpperCase();
  return attributes;
}
