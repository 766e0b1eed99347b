/**
 * How a service calls its peers: unary gRPC written straight onto an HTTP/2 stream (ADR 0096),
 * streams through Connect's own gRPC transport. A unary call through Connect's transport went
 * through its async-iterable pipeline, a web `Headers` per step and an abort controller that it
 * aborts at the end of every call (an error object each time): in the Order service, which
 * makes two peer calls per order, that was the largest part of its own code's cost. The calls
 * carry the same bytes: the path, `content-type: application/grpc+proto`, `te: trailers`, the
 * deadline as `grpc-timeout`, the caller's headers, and one uncompressed length-prefixed message.
 *
 * Answers read as Connect reads them: `grpc-status` and `grpc-message` from the trailers (or the
 * headers of a trailers-only answer); a non-200 HTTP status, a reset stream or a connection
 * that fails become the codes Connect gives them. Deadlines expire on one sweeper per transport
 * (deadline-sweeper.ts), up to 25 ms late.
 */
import {
  connect,
  constants,
  type ClientHttp2Session,
  type IncomingHttpHeaders,
  type IncomingHttpStatusHeader,
  type OutgoingHttpHeaders,
} from "node:http2";
import {
  create,
  fromBinary,
  isMessage,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createDeadlineSweeper, type Deadline } from "./deadline-sweeper.js";
import { envelope, toNodeHeaders } from "./grpc-wire.js";
import { createLazyHeaders } from "./lazy-headers.js";

export interface GrpcPeerTransportOptions {
  /** The peer's address, `http://host:port` (h2c). */
  readonly baseUrl: string;
  /** The deadline of a call that states none. */
  readonly defaultTimeoutMs: number;
}

/** The gRPC code of a non-200 HTTP status, as gRPC's HTTP mapping (and Connect) gives it. */
function codeOfHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}

/** The gRPC code of an HTTP/2 stream reset, as Connect gives it. */
function codeOfResetCode(rstCode: number): Code {
  switch (rstCode) {
    case constants.NGHTTP2_REFUSED_STREAM:
      return Code.Unavailable;
    case constants.NGHTTP2_CANCEL:
      return Code.Canceled;
    case constants.NGHTTP2_ENHANCE_YOUR_CALM:
      return Code.ResourceExhausted;
    case constants.NGHTTP2_INADEQUATE_SECURITY:
      return Code.PermissionDenied;
    default:
      return Code.Internal;
  }
}

/** The message of a gRPC answer's body: one uncompressed length-prefixed frame. */
function decodeMessage<O extends DescMessage>(schema: O, body: Buffer): MessageShape<O> {
  if (body.length < 5) throw new ConnectError("the answer has no message", Code.Unimplemented);
  if ((body[0] ?? 0) & 1)
    throw new ConnectError("the answer is compressed, which was not asked for", Code.Internal);
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) throw new ConnectError("the answer is not one message", Code.Unimplemented);
  try {
    return fromBinary(schema, body.subarray(5));
  } catch (cause) {
    throw new ConnectError("the answer's message does not parse", Code.Internal, undefined, undefined, cause);
  }
}

/** What a transport is handed as a call's headers (a DOM type this project's lib setting does not declare). */
type HeadersInit = ConstructorParameters<typeof Headers>[0];

/** The call's request headers as Node takes them. */
function requestHeaders(path: string, timeoutMs: number, header: HeadersInit): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc+proto",
    te: "trailers",
    "grpc-timeout": `${Math.max(1, Math.ceil(timeoutMs))}m`,
  };
  return header === undefined
    ? headers
    : toNodeHeaders(header instanceof Headers ? header : new Headers(header), headers);
}

/** One unary call: the stream, what came back so far, and how it ends. */
class UnaryCall<O extends DescMessage> implements Deadline {
  readonly at: number;
  #settled = false;
  readonly #chunks: Buffer[] = [];
  #headers: (IncomingHttpHeaders & IncomingHttpStatusHeader) | undefined;
  #trailers: IncomingHttpHeaders | undefined;
  #error: Error | undefined;

  constructor(
    private readonly stream: ReturnType<ClientHttp2Session["request"]>,
    private readonly output: O,
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (answer: {
      header: Headers;
      message: MessageShape<O>;
      trailer: Headers;
    }) => void,
    private readonly reject: (error: ConnectError) => void,
    private readonly done: (call: UnaryCall<O>) => void,
  ) {
    this.at = Date.now() + timeoutMs;
    stream.on("response", (headers) => {
      this.#headers = headers;
    });
    stream.on("data", (chunk: Buffer) => {
      this.#chunks.push(chunk);
    });
    stream.on("trailers", (trailers: IncomingHttpHeaders) => {
      this.#trailers = trailers;
    });
    stream.on("error", (error: Error) => {
      this.#error = error;
    });
    stream.on("close", () => {
      this.#finish();
    });
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  expire(): void {
    this.#fail(new ConnectError("the peer did not answer in time", Code.DeadlineExceeded));
  }

  readonly #onAbort = (): void => {
    this.#fail(ConnectError.from(this.signal?.reason, Code.Canceled));
  };

  #fail(error: ConnectError): void {
    if (this.#settled) return;
    this.#settle();
    this.stream.close(constants.NGHTTP2_CANCEL);
    this.reject(error);
  }

  #settle(): void {
    this.#settled = true;
    this.signal?.removeEventListener("abort", this.#onAbort);
    this.done(this);
  }

  #finish(): void {
    if (this.#settled) return;
    this.#settle();
    try {
      this.resolve(this.#answer());
    } catch (error) {
      this.reject(ConnectError.from(error));
    }
  }

  #answer(): { header: Headers; message: MessageShape<O>; trailer: Headers } {
    const headers = this.#headers;
    if (headers === undefined) {
      const reset = this.stream.rstCode;
      if (this.#error === undefined && reset !== constants.NGHTTP2_NO_ERROR)
        throw new ConnectError(`the peer reset the stream (${reset})`, codeOfResetCode(reset));
      throw new ConnectError("the peer is unavailable", Code.Unavailable, undefined, undefined, this.#error);
    }
    const status = headers[":status"] ?? 0;
    if (status !== 200) throw new ConnectError(`the peer answered HTTP ${status}`, codeOfHttpStatus(status));
    // A trailers-only answer carries its status in the headers.
    const trailers = this.#trailers ?? (headers["grpc-status"] === undefined ? undefined : headers);
    const grpcStatus = trailers?.["grpc-status"];
    if (typeof grpcStatus !== "string") {
      const reset = this.stream.rstCode;
      throw new ConnectError(
        "the answer ended without a gRPC status",
        reset !== constants.NGHTTP2_NO_ERROR ? codeOfResetCode(reset) : Code.Internal,
        undefined,
        undefined,
        this.#error,
      );
    }
    const header = createLazyHeaders(headers);
    const trailer = createLazyHeaders(trailers ?? {});
    const code = Number(grpcStatus);
    if (code !== 0) {
      const raw = trailers?.["grpc-message"];
      const message = typeof raw === "string" ? decodeURIComponent(raw) : "";
      const name = Code[code] as keyof typeof Code | undefined;
      const metadata = new Headers(header);
      trailer.forEach((value, key) => {
        metadata.append(key, value);
      });
      throw new ConnectError(message, name === undefined ? Code.Unknown : Code[name], metadata);
    }
    return { header, message: decodeMessage(this.output, Buffer.concat(this.#chunks)), trailer };
  }
}

/** A transport to one peer; `close()` ends its connection (calls in flight fail). */
export function createGrpcPeerTransport(options: GrpcPeerTransportOptions): Transport & { close(): void } {
  const { defaultTimeoutMs } = options;
  const origin = new URL(options.baseUrl).origin;
  const streaming = createGrpcTransport({ baseUrl: options.baseUrl, defaultTimeoutMs });
  const deadlines = createDeadlineSweeper();
  let session: ClientHttp2Session | undefined;
  let closed = false;

  /** The open connection, or a new one when there is none (a peer restarted, a GOAWAY). */
  function connection(): ClientHttp2Session {
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    const opened = connect(origin);
    const forget = (): void => {
      if (session === opened) session = undefined;
    };
    // A connection's failure reaches its streams, and each call reports it; here it only ends.
    opened.on("error", forget);
    opened.on("goaway", forget);
    opened.on("close", forget);
    // Calls keep the process busy, not an idle connection to a peer.
    opened.unref();
    session = opened;
    return opened;
  }

  return {
    unary<I extends DescMessage, O extends DescMessage>(
      call: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: unknown,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      return new Promise<UnaryResponse<I, O>>((resolve, reject) => {
        if (closed) throw new ConnectError("the transport is closed", Code.Unavailable);
        if (signal?.aborted === true) throw ConnectError.from(signal.reason, Code.Canceled);
        const timeout = timeoutMs ?? defaultTimeoutMs;
        const message = isMessage(input, call.input) ? input : create(call.input, input);
        const frame = envelope(0, toBinary(call.input, message));
        const stream = connection().request(
          requestHeaders(`/${call.parent.typeName}/${call.name}`, timeout, header as HeadersInit),
        );
        const unary = new UnaryCall(
          stream,
          call.output,
          timeout,
          signal,
          (answer) => {
            resolve({ stream: false, service: call.parent, method: call, ...answer });
          },
          reject,
          (done) => {
            deadlines.disarm(done);
          },
        );
        deadlines.arm(unary);
        stream.end(frame);
      });
    },
    stream: (...args) => streaming.stream(...args),
    close() {
      closed = true;
      session?.close();
      session = undefined;
    },
  };
}
