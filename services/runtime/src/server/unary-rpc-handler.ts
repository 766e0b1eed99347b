/**
 * Serves the calls that make up nearly all traffic on the service port — unary RPCs in the
 * Connect protocol (POST, JSON or binary) and in gRPC over HTTP/2 — with a short path of our
 * own, and hands every other request to Connect's Node adapter (streams, Connect GET, gRPC-Web,
 * gRPC over HTTP/1.1, unknown paths, probes).
 *
 * Why: Connect's adapter runs each call through a generic streaming pipeline (a chain of async
 * iterables for the body, the envelopes and the response, web `Headers` copied three times, two
 * linked AbortControllers per call, both aborted at the end, which builds two `DOMException`s
 * with stack traces). Profiled on this port it cost about 100 µs of CPU per GetProduct, six times
 * the rest of the request, and held the port to a tenth of a bare Node server
 * (ADR 0023). This path keeps the protocol behaviour — the
 * same content types, compression negotiation, timeouts, size limits, error bodies and status
 * trailers, built with Connect's own protocol functions — and the same interceptors, in the
 * same order, as the adapter; only the plumbing around them is shorter.
 */
import { create, isMessage, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type HandlerContext,
  type Interceptor,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import {
  compressionNegotiate,
  createMethodSerializationLookup,
  validateUniversalHandlerOptions,
  type Compression,
  type MethodSerializationLookup,
} from "@connectrpc/connect/protocol";
import {
  codeToHttpStatus,
  contentTypeUnaryJson,
  contentTypeUnaryProto,
  errorToJsonBytes,
  parseContentType as parseConnectContentType,
  parseTimeout as parseConnectTimeout,
} from "@connectrpc/connect/protocol-connect";
import {
  contentTypeJson as grpcContentTypeJson,
  contentTypeProto as grpcContentTypeProto,
  grpcStatusOk,
  parseContentType as parseGrpcContentType,
  parseTimeout as parseGrpcTimeout,
  setTrailerStatus,
} from "@connectrpc/connect/protocol-grpc";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import { getEventListeners, setMaxListeners } from "node:events";
import type { OutgoingHttpHeaders } from "node:http";
import { envelope, toNodeHeaders } from "../transport/grpc-wire.js";
import { createDeadlineSweeper, type Deadline } from "../transport/deadline-sweeper.js";
import type { ServiceRegistrar } from "../transport/in-process-transport.js";
import { ResponseMetadata, UnaryHandlerContext } from "../transport/unary-handler-context.js";
import type { DualRequest, DualRequestHandler, Http2StreamTaker } from "./dual-protocol-server.js";
import { createLazyHeaders } from "../transport/lazy-headers.js";
import { CompatExchange, StreamExchange, tooLarge, type UnaryExchange } from "./unary-exchange.js";

export interface UnaryRpcHandlerOptions {
  readonly routes: (registrar: ServiceRegistrar) => void;
  readonly interceptors: readonly Interceptor[];
  readonly readMaxBytes: number;
  /** Aborted when the server shuts down: every call in flight is told, as Connect's adapter does. */
  readonly shutdownSignal?: AbortSignal;
  /** Serves every request this path does not take: Connect's adapter over the same routes. */
  readonly fallback: DualRequestHandler;
}

type UnaryImpl = (request: unknown, context: HandlerContext) => unknown;

interface UnaryMethod {
  readonly method: DescMethod;
  readonly serialization: MethodSerializationLookup<DescMessage, DescMessage>;
  /** The interceptors around the implementation, composed once when the method is registered. */
  readonly next: (request: ServedRequest) => Promise<UnaryResponse>;
}

/** What the implementation's context needs of the call beyond the request the interceptors pass on. */
interface CallState {
  readonly protocolName: Protocol["name"];
  readonly metadata: ResponseMetadata;
  readonly deadline: number | undefined;
}

/**
 * Where the call's own state rides on its request: a symbol-keyed property, which interceptors
 * that pass a changed copy on (`{ ...req, signal }`) carry with them.
 */
const callState = Symbol("call state");
type ServedRequest = UnaryRequest & { readonly [callState]: CallState };

/** What differs between the two protocols this path speaks. */
interface Protocol {
  readonly name: "connect" | "grpc";
  readonly binary: boolean;
  readonly timeoutHeader: string;
  readonly encodingHeader: string;
  readonly acceptEncodingHeader: string;
  parseTimeout(
    value: string | null,
    maxTimeoutMs: number,
  ): { timeoutMs?: number | undefined; error?: ConnectError | undefined };
}

const completed = new ConnectError("the call has completed", Code.Canceled);
const timedOut = new ConnectError("the operation timed out", Code.DeadlineExceeded);
const clientGone = new ConnectError("the client closed the request", Code.Canceled);
const shuttingDown = new ConnectError("the service is shutting down", Code.Unavailable);

function protocolFor(req: DualRequest): Protocol | undefined {
  const contentType = req.headers["content-type"];
  if (req.method !== "POST" || contentType === undefined) return undefined;
  if (contentType.startsWith("application/grpc")) {
    // gRPC needs trailers: over HTTP/1.1 only gRPC-Web can carry them, and that is Connect's.
    if (req.httpVersionMajor !== 2 || contentType.startsWith("application/grpc-web")) return undefined;
    const type = parseGrpcContentType(contentType);
    return type === undefined ? undefined : type.binary ? grpcBinary : grpcJson;
  }
  const type = parseConnectContentType(contentType);
  if (type === undefined || type.stream) return undefined;
  return type.binary ? connectBinary : connectJson;
}

const connectCommon = {
  name: "connect",
  timeoutHeader: "connect-timeout-ms",
  encodingHeader: "content-encoding",
  acceptEncodingHeader: "accept-encoding",
  parseTimeout: parseConnectTimeout,
} as const;
const grpcCommon = {
  name: "grpc",
  timeoutHeader: "grpc-timeout",
  encodingHeader: "grpc-encoding",
  acceptEncodingHeader: "grpc-accept-encoding",
  parseTimeout: parseGrpcTimeout,
} as const;
const connectBinary: Protocol = { ...connectCommon, binary: true };
const connectJson: Protocol = { ...connectCommon, binary: false };
const grpcBinary: Protocol = { ...grpcCommon, binary: true };
const grpcJson: Protocol = { ...grpcCommon, binary: false };

/** The short path's two ways in: Node's compatibility API, and HTTP/2 streams themselves. */
export interface UnaryRpcHandler {
  /** Serves any request: a unary call this path takes, anything else through `fallback`. */
  readonly handler: DualRequestHandler;
  /** Takes an HTTP/2 stream that carries a unary gRPC call, or returns false. */
  readonly takeStream: Http2StreamTaker;
}

export function createUnaryRpcHandler(options: UnaryRpcHandlerOptions): UnaryRpcHandler {
  // Connect's defaults for everything the adapter is not told, so both paths agree.
  const limits = validateUniversalHandlerOptions({ readMaxBytes: options.readMaxBytes });
  const acceptCompression: Compression[] = [compressionGzip, compressionBrotli];
  const interceptors = [...options.interceptors];
  const methods = new Map<string, UnaryMethod>();
  options.routes({
    service(service: DescService, implementation: Record<string, unknown>) {
      for (const method of service.methods) {
        const impl = implementation[method.localName];
        if (method.methodKind !== "unary" || typeof impl !== "function") continue;
        const bound = impl.bind(implementation) as UnaryImpl;
        const call = async (r: UnaryRequest): Promise<UnaryResponse> => {
          const { protocolName, metadata, deadline } = (r as ServedRequest)[callState];
          const context = new UnaryHandlerContext(r, protocolName, metadata, deadline);
          return {
            stream: false,
            service: method.parent,
            method,
            header: metadata.header,
            trailer: metadata.trailer,
            message: toMessage(method.output, await bound(r.message, context)),
          } as UnaryResponse;
        };
        methods.set(`/${service.typeName}/${method.name}`, {
          method,
          serialization: createMethodSerializationLookup(method, undefined, limits.jsonOptions, limits),
          next: interceptors.reduceRight<(r: UnaryRequest) => Promise<UnaryResponse>>(
            (inner, interceptor) => interceptor(inner as never) as never,
            call,
          ),
        });
      }
    },
  });

  // Calls in flight, told when the server shuts down; their deadlines, on one sweeping timer.
  const inFlight = new Set<AbortController>();
  const deadlines = createDeadlineSweeper();
  const shutdown = options.shutdownSignal;
  shutdown?.addEventListener(
    "abort",
    () => {
      for (const controller of inFlight) controller.abort(shuttingDown);
    },
    { once: true },
  );

  async function serve(target: UnaryMethod, protocol: Protocol, exchange: UnaryExchange) {
    const { method } = target;
    const header = createLazyHeaders(exchange.headers);
    const controller = new AbortController();
    // Each store and peer call of the handler listens while it runs; a read of 100 products
    // listens 100 times at once, which is no leak.
    setMaxListeners(0, controller.signal);
    const timeout = protocol.parseTimeout(header.get(protocol.timeoutHeader), limits.maxTimeoutMs);
    const expiry =
      timeout.timeoutMs === undefined
        ? undefined
        : new CallExpiry(controller, Date.now() + timeout.timeoutMs);
    if (expiry !== undefined) deadlines.arm(expiry);
    // A client that goes away closes the exchange before we answered. Not `writableFinished`:
    // on HTTP/2 a stream reset by the client also "finishes" the response.
    let answering = false;
    exchange.onClose(() => {
      if (!answering) controller.abort(clientGone);
    });
    inFlight.add(controller);
    if (shutdown?.aborted === true) controller.abort(shuttingDown);
    const compression = compressionNegotiate(
      acceptCompression,
      header.get(protocol.encodingHeader),
      header.get(protocol.acceptEncodingHeader),
      protocol.acceptEncodingHeader,
    );
    const metadata = new ResponseMetadata();
    let output: Uint8Array | undefined;
    let error: ConnectError | undefined;
    try {
      if (compression.error) throw compression.error;
      if (timeout.error) throw timeout.error;
      const body = await exchange.readBody(limits.readMaxBytes);
      const payload =
        protocol.name === "grpc"
          ? await unwrapEnvelope(body, compression.request, limits.readMaxBytes)
          : compression.request
            ? await compression.request.decompress(body, limits.readMaxBytes)
            : body;
      const input = target.serialization.getI(protocol.binary).parse(payload);
      const response = await target.next({
        stream: false,
        service: method.parent,
        method,
        requestMethod: "POST",
        url: `http://${exchange.authority}${exchange.url}`,
        signal: controller.signal,
        header,
        contextValues: createContextValues(),
        message: input,
        [callState]: { protocolName: protocol.name, metadata, deadline: expiry?.at },
      } as ServedRequest);
      copyInto(response.header, metadata);
      copyInto(response.trailer, metadata, "trailer");
      output = target.serialization.getO(protocol.binary).serialize(response.message);
    } catch (cause) {
      error =
        cause instanceof ConnectError
          ? cause
          : new ConnectError("internal error", Code.Internal, undefined, undefined, cause);
    } finally {
      if (expiry !== undefined) deadlines.disarm(expiry);
      inFlight.delete(controller);
      // Connect's contract: the signal also fires when the call completes, releasing whatever
      // still listens. Only when something does: dispatching costs an Event per call. A shared
      // reason: a fresh error per call would build a stack trace each time.
      if (getEventListeners(controller.signal, "abort").length > 0) controller.abort(completed);
    }
    answering = true;
    if (protocol.name === "grpc") {
      await sendGrpc(
        exchange,
        protocol,
        compression.response,
        metadata,
        output,
        error,
        limits.compressMinBytes,
      );
    } else {
      await sendConnect(exchange, protocol, compression.response, metadata, output, error, limits);
    }
  }

  const start = (target: UnaryMethod, protocol: Protocol, exchange: UnaryExchange): void => {
    serve(target, protocol, exchange).catch(() => {
      // Only writing can fail here (the client went away): nothing is left to answer.
      exchange.destroy();
    });
  };

  return {
    handler(req, res) {
      const target = methods.get(pathOf(req.url ?? ""));
      const protocol = target === undefined ? undefined : protocolFor(req);
      if (target === undefined || protocol === undefined) {
        options.fallback(req, res);
        return;
      }
      start(target, protocol, new CompatExchange(req, res));
    },
    takeStream(stream, headers) {
      // Only what this path serves of HTTP/2 itself: unary gRPC, with no expectation to answer.
      const contentType = headers["content-type"];
      if (
        headers[":method"] !== "POST" ||
        headers.expect !== undefined ||
        contentType?.startsWith("application/grpc") !== true ||
        contentType.startsWith("application/grpc-web")
      )
        return false;
      const target = methods.get(pathOf(headers[":path"] ?? ""));
      const type = target === undefined ? undefined : parseGrpcContentType(contentType);
      if (target === undefined || type === undefined) return false;
      start(target, type.binary ? grpcBinary : grpcJson, new StreamExchange(stream, headers));
      return true;
    },
  };
}

/** A request URL's path, without the query. */
function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

/** A call's deadline: its signal aborts once it passes (deadline-sweeper.ts). */
class CallExpiry implements Deadline {
  constructor(
    private readonly controller: AbortController,
    readonly at: number,
  ) {}
  expire(): void {
    this.controller.abort(timedOut);
  }
}

async function sendConnect(
  exchange: UnaryExchange,
  protocol: Protocol,
  compression: Compression | null,
  metadata: ResponseMetadata,
  output: Uint8Array | undefined,
  error: ConnectError | undefined,
  limits: { compressMinBytes: number; jsonOptions?: Parameters<typeof errorToJsonBytes>[1] },
): Promise<void> {
  let status = 200;
  let body: Uint8Array;
  let wire: OutgoingHttpHeaders;
  if (error === undefined && output !== undefined) {
    // Node's header object straight away: most calls set no header of their own, and a web
    // `Headers` to fill and read back cost more than the rest of the answer.
    wire = nodeHeadersOf(metadata.headerIfSet);
    wire["content-type"] = protocol.binary ? contentTypeUnaryProto : contentTypeUnaryJson;
    body = output;
  } else {
    const failure = error ?? new ConnectError("internal error", Code.Internal);
    const header = metadata.header;
    status = codeToHttpStatus(failure.code);
    header.set("content-type", contentTypeUnaryJson);
    failure.metadata.forEach((value, key) => header.set(key, value));
    wire = toNodeHeaders(header);
    body = errorToJsonBytes(failure, limits.jsonOptions ?? {});
  }
  if (compression !== null && body.byteLength >= limits.compressMinBytes) {
    body = await compression.compress(body);
    wire["content-encoding"] = compression.name;
  }
  // Trailers travel as `trailer-` headers in unary Connect (appended, as `trailerMux` does).
  metadata.trailerIfSet?.forEach((value, key) => {
    const name = `trailer-${key}`;
    const present = wire[name];
    wire[name] = present === undefined ? value : `${String(present)}, ${value}`;
  });
  wire["content-length"] = String(body.byteLength);
  exchange.respond(status, wire, body);
}

async function sendGrpc(
  exchange: UnaryExchange,
  protocol: Protocol,
  compression: Compression | null,
  metadata: ResponseMetadata,
  output: Uint8Array | undefined,
  error: ConnectError | undefined,
  compressMinBytes: number,
): Promise<void> {
  const contentType = protocol.binary ? grpcContentTypeProto : grpcContentTypeJson;
  if (error !== undefined || output === undefined) {
    const header = metadata.header;
    header.set("content-type", contentType);
    const trailer = metadata.trailer;
    // An error is a Trailers-Only response (gRPC over HTTP/2): status and metadata in the one
    // HEADERS frame. Envoy's transcoder then hands the metadata (Retry-After) to REST clients;
    // from trailers after headers it takes only the status.
    setTrailerStatus(trailer, error ?? new ConnectError("internal error", Code.Internal));
    trailer.forEach((value, key) => header.set(key, value));
    exchange.respondHeadersOnly(toNodeHeaders(header));
    return;
  }
  // Node's header objects straight away, as in sendConnect.
  const header = nodeHeadersOf(metadata.headerIfSet);
  header["content-type"] = contentType;
  let flags = 0;
  let data = output;
  if (compression !== null) {
    header["grpc-encoding"] = compression.name;
    if (data.byteLength >= compressMinBytes) {
      data = await compression.compress(data);
      flags = 1;
    }
  }
  const trailer = nodeHeadersOf(metadata.trailerIfSet);
  trailer["grpc-status"] = grpcStatusOk;
  exchange.respond(200, header, envelope(flags, data), trailer);
}

/** The one message of a unary gRPC request, out of its 5-byte envelope. */
async function unwrapEnvelope(
  body: Uint8Array,
  compression: Compression | null,
  readMaxBytes: number,
): Promise<Uint8Array> {
  if (body.byteLength === 0) {
    throw new ConnectError("protocol error: missing input message for unary method", Code.Unimplemented);
  }
  if (body.byteLength < 5)
    throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const flags = view.getUint8(0);
  const length = view.getUint32(1);
  if (length > readMaxBytes) throw tooLarge(readMaxBytes, length);
  if (body.byteLength < 5 + length) {
    throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  }
  if (body.byteLength > 5 + length) {
    throw new ConnectError(
      "protocol error: received extra input message for unary method",
      Code.Unimplemented,
    );
  }
  const data = body.subarray(5);
  if ((flags & 1) === 0) return data;
  if (compression === null) {
    throw new ConnectError("received compressed envelope, but do not know how to decompress", Code.Internal);
  }
  return compression.decompress(data, readMaxBytes);
}

/** The headers a handler or interceptor set, as Node's object; an empty one when none were. */
const nodeHeadersOf = (headers: Headers | undefined): OutgoingHttpHeaders =>
  headers === undefined ? {} : toNodeHeaders(headers);

/** Headers an interceptor returned in place of the handler's, as Connect copies them. */
function copyInto(from: Headers, metadata: ResponseMetadata, which: "header" | "trailer" = "header"): void {
  const current = which === "header" ? metadata.headerIfSet : metadata.trailerIfSet;
  if (from === current) return;
  const to = which === "header" ? metadata.header : metadata.trailer;
  to.forEach((_, key) => to.delete(key));
  from.forEach((value, key) => to.set(key, value));
}

function toMessage(schema: DescMessage, value: unknown): unknown {
  return isMessage(value, schema) ? value : create(schema, value as never);
}
