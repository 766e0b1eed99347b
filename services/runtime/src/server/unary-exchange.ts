/**
 * One unary call's request and answer as the service port's short path sees them
 * (unary-rpc-handler.ts), on either of Node's HTTP APIs: the request and response objects of
 * its compatibility API (HTTP/1.1, and HTTP/2 calls the short path does not take as streams),
 * or an HTTP/2 stream itself. A gRPC call from Envoy arrives on a stream; served from the
 * stream, it makes none of the request and response objects, nor the dozen listeners they add
 * to it, which were a tenth of the port's cost per call (ADR 0094).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { Http2ServerResponse, ServerHttp2Stream } from "node:http2";
import type { Readable } from "node:stream";
import type { DualRequest, DualResponse } from "./dual-protocol-server.js";

export interface UnaryExchange {
  readonly headers: IncomingHttpHeaders;
  /** The request's path and query. */
  readonly url: string;
  /** The request's `:authority` (HTTP/2) or Host (HTTP/1.1). */
  readonly authority: string;
  /** The whole request body; refused with RESOURCE_EXHAUSTED past `limit` bytes. */
  readBody(limit: number): Promise<Uint8Array>;
  /** Calls `listener` when the exchange closes, answered or not. */
  onClose(listener: () => void): void;
  /** Answers: status, headers, body, then `trailers` if given (HTTP/2 only); the answer ends. */
  respond(
    status: number,
    headers: OutgoingHttpHeaders,
    body: Uint8Array,
    trailers?: OutgoingHttpHeaders,
  ): void;
  /** Answers 200 with headers only, ending the stream with them (gRPC's Trailers-Only; HTTP/2 only). */
  respondHeadersOnly(headers: OutgoingHttpHeaders): void;
  /** Cuts the exchange short (writing failed: the client went away). */
  destroy(): void;
}

/** A call on the compatibility API's request and response. */
export class CompatExchange implements UnaryExchange {
  constructor(
    private readonly req: DualRequest,
    private readonly res: DualResponse,
  ) {}

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }
  get url(): string {
    return this.req.url ?? "";
  }
  get authority(): string {
    return authorityOf(this.req.headers);
  }
  readBody(limit: number): Promise<Uint8Array> {
    return readBody(this.req, this.req.headers, limit);
  }
  onClose(listener: () => void): void {
    this.res.once("close", listener);
  }
  respond(
    status: number,
    headers: OutgoingHttpHeaders,
    body: Uint8Array,
    trailers?: OutgoingHttpHeaders,
  ): void {
    this.res.writeHead(status, headers);
    // Both HTTP/2 response kinds in Node's types; only the HTTP/2 one is given trailers.
    if (trailers !== undefined) (this.res as Http2ServerResponse).addTrailers(trailers);
    this.res.end(body);
  }
  respondHeadersOnly(headers: OutgoingHttpHeaders): void {
    (this.res as Http2ServerResponse).stream.respond({ ...headers, ":status": 200 }, { endStream: true });
  }
  destroy(): void {
    if (!this.res.writableEnded) this.res.destroy();
  }
}

/** Errors on a stream served as such: they end the stream, and nothing is left to tell. */
const ignore = (): void => undefined;

/** A call on an HTTP/2 stream, served without the compatibility API's objects. */
export class StreamExchange implements UnaryExchange {
  constructor(
    private readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
  ) {
    // An error on a stream without a listener would throw from the session.
    stream.on("error", ignore);
  }

  get url(): string {
    const path = this.headers[":path"];
    return typeof path === "string" ? path : "";
  }
  get authority(): string {
    return authorityOf(this.headers);
  }
  readBody(limit: number): Promise<Uint8Array> {
    return readBody(this.stream, this.headers, limit);
  }
  onClose(listener: () => void): void {
    this.stream.once("close", listener);
  }
  respond(
    status: number,
    headers: OutgoingHttpHeaders,
    body: Uint8Array,
    trailers?: OutgoingHttpHeaders,
  ): void {
    const stream = this.stream;
    headers[":status"] = status;
    if (trailers === undefined) {
      stream.respond(headers);
    } else {
      stream.respond(headers, { waitForTrailers: true });
      stream.once("wantTrailers", () => stream.sendTrailers(trailers));
    }
    stream.end(body);
  }
  respondHeadersOnly(headers: OutgoingHttpHeaders): void {
    headers[":status"] = 200;
    this.stream.respond(headers, { endStream: true });
  }
  destroy(): void {
    if (!this.stream.destroyed) this.stream.destroy();
  }
}

function authorityOf(headers: IncomingHttpHeaders): string {
  const authority = headers[":authority"] ?? headers.host;
  return typeof authority === "string" ? authority : "localhost";
}

/** The request body, refused as soon as it passes `limit` (Connect's code and message). */
function readBody(source: Readable, headers: IncomingHttpHeaders, limit: number): Promise<Uint8Array> {
  const declared = Number(headers["content-length"]);
  if (declared > limit) return Promise.reject(tooLarge(limit, declared));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size > limit) {
        source.off("data", onData);
        source.off("end", onEnd);
        // Drain the rest so that an HTTP/1.1 connection stays usable.
        source.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks, size));
    source.on("data", onData);
    source.once("end", onEnd);
    source.once("error", reject);
  });
}

export function tooLarge(limit: number, size?: number): ConnectError {
  return new ConnectError(
    size === undefined
      ? `message size is larger than configured readMaxBytes ${limit}`
      : `message size ${size} is larger than configured readMaxBytes ${limit}`,
    Code.ResourceExhausted,
  );
}
