/**
 * One TCP port that speaks HTTP/2 cleartext (gRPC, Connect) and HTTP/1.1 (Connect, gRPC-Web,
 * REST, probes). Node's `http2.createServer` only offers `allowHTTP1` with TLS, so the first
 * bytes of each connection decide: the HTTP/2 preface starts with "PRI", no HTTP/1 method does.
 *
 * What the HTTP/1 server refuses by itself (a request it cannot parse, headers over the limit, a
 * missing Host, an unknown expectation, an upgrade, a tunnel) is answered with the one JSON
 * error body (protocol-refusals.ts), not Node's empty ones.
 */
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { createServer as createHttp1Server, type ServerResponse } from "node:http";
import {
  createServer as createHttp2Server,
  Http2ServerRequest,
  Http2ServerResponse,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from "node:http2";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { sendError, type ErrorBody } from "./error-body.js";
import {
  expectationFailed,
  malformedRequest,
  maxRequestHeadBytes,
  maxRequestHeaderCount,
  refusalOf,
  requestHeadTooLarge,
  refusalResponse,
  tunnelRefused,
  upgradeRefused,
} from "./protocol-refusals.js";

/** A handler for requests of both protocols, shaped like Connect's Node adapter. */
export type DualRequestHandler = ReturnType<typeof connectNodeAdapter>;
export type DualRequest = Parameters<DualRequestHandler>[0];
export type DualResponse = Parameters<DualRequestHandler>[1];

/**
 * Takes an HTTP/2 stream to serve it as such and returns true, or returns false to have it
 * served as a request by the handler (unary-rpc-handler.ts takes unary gRPC calls).
 */
export type Http2StreamTaker = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

export interface DualProtocolServer {
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, lets requests in flight finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

const http2Preface = Buffer.from("PRI");

/**
 * How long a refused connection stays open for the client to read the refusal: closing a socket
 * with unread input resets it, and a reset can discard the answer before it is read.
 */
const refusalLingerMs = 1_000;

/** Answers with `refusal` on the connection itself, then closes it. */
function refuseOnSocket(socket: Duplex, refusal: ErrorBody): void {
  socket.end(refusalResponse(refusal));
  // Whatever else the client sends is read and dropped meanwhile.
  socket.resume();
  setTimeout(() => socket.destroy(), refusalLingerMs).unref();
}

export function createDualProtocolServer(
  handler: DualRequestHandler,
  takeStream: Http2StreamTaker = () => false,
): DualProtocolServer {
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  // HTTP/1 requests in flight per socket, so that closing can end idle keep-alive connections
  // at once and busy ones as soon as their response is sent.
  const inFlight = new Map<Socket, number>();
  let closing = false;
  const http2Sockets = new WeakSet<Socket>();
  const isHttp2 = (socket: Socket): boolean => http2Sockets.has(socket);
  // The response being written on each HTTP/1 connection, until it is sent.
  const answering = new WeakMap<Duplex, ServerResponse>();
  const refused = new WeakSet<Duplex>();
  const http1 = createHttp1Server(
    // A missing Host and too many headers are refused below, so that the refusal carries the
    // error body; Node would refuse the one with an empty body and truncate the other.
    {
      keepAliveTimeout: 65_000,
      maxHeaderSize: maxRequestHeadBytes,
      requireHostHeader: false,
    },
    (req, res) => {
      const socket = req.socket;
      inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
      answering.set(socket, res);
      res.once("close", () => {
        const left = (inFlight.get(socket) ?? 1) - 1;
        inFlight.set(socket, left);
        if (answering.get(socket) === res) answering.delete(socket);
        if (closing && left === 0) socket.destroy();
      });
      const refusal =
        req.rawHeaders.length / 2 > maxRequestHeaderCount
          ? requestHeadTooLarge
          : req.httpVersionMinor === 1 && req.headers.host === undefined
            ? malformedRequest
            : undefined;
      if (refusal !== undefined) {
        res.shouldKeepAlive = false;
        sendError(res, refusal);
        return;
      }
      handler(req, res);
    },
  );
  http1.maxHeadersCount = maxRequestHeaderCount + 1;
  // A request the parser gave up on (or that timed out): answered on the socket itself, unless
  // an answer to it has begun, which the refusal would corrupt. The parser reports each further
  // chunk of such a connection again; only the first counts.
  http1.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    if (refused.has(socket)) return;
    refused.add(socket);
    const started = answering.get(socket)?.headersSent === true;
    if (!socket.writable || started) {
      socket.destroy();
      return;
    }
    refuseOnSocket(socket, refusalOf(error.code));
  });
  // Any expectation but 100-continue, which Node answers with an empty 417 by default. Envoy
  // passes such a request on, so the services' own answer is the edge's.
  http1.on("checkExpectation", (_req, res: ServerResponse) => {
    res.shouldKeepAlive = false;
    sendError(res, expectationFailed);
  });
  // A request to switch protocols (WebSocket, h2c): Node would serve it as a plain request.
  http1.on("upgrade", (_req, socket: Duplex) => refuseOnSocket(socket, upgradeRefused));
  http1.on("connect", (_req, socket: Duplex) => refuseOnSocket(socket, tunnelRefused));
  // No request listener: Node would make a request and a response object for every stream,
  // before anyone could take it. Those the taker leaves get them here, as Node makes them.
  const http2 = createHttp2Server({});
  http2.on(
    "stream",
    (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags, rawHeaders: string[]) => {
      if (takeStream(stream, headers)) return;
      const req = new Http2ServerRequest(stream, headers, {}, rawHeaders);
      const res = new Http2ServerResponse(stream);
      if (headers[":method"] === "CONNECT") {
        res.statusCode = 405;
        res.end();
      } else if (headers.expect === undefined) {
        handler(req, res);
      } else if (headers.expect === "100-continue") {
        res.writeContinue();
        handler(req, res);
      } else {
        sendError(res, expectationFailed);
      }
    },
  );
  http2.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  const net = createNetServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      inFlight.delete(socket);
    });
    socket.on("error", () => socket.destroy());
    let head = Buffer.alloc(0);
    const route = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      if (head.length < http2Preface.length) {
        socket.once("data", route);
        return;
      }
      // The bytes read go back into the socket for whichever server takes it. An HTTP/2 session
      // reads the native handle directly and picks up what was put back on its first tick (Node
      // >= 15); it must not be resumed, or the stream would flow those bytes to no listener.
      // Handing it the socket itself rather than a JS stream wrapping it keeps HTTP/2 reads and
      // writes native: a wrapping Duplex cost half the h2c throughput.
      socket.pause();
      socket.unshift(head);
      if (head.subarray(0, http2Preface.length).equals(http2Preface)) {
        http2Sockets.add(socket);
        http2.emit("connection", socket);
      } else {
        http1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.once("data", route);
  });

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        net.once("error", reject);
        net.listen(port, host, () => {
          net.off("error", reject);
          resolve((net.address() as AddressInfo).port);
        });
      });
    },
    async close(graceMs = 5_000) {
      closing = true;
      const closed = new Promise<void>((resolve) => net.close(() => resolve()));
      for (const session of sessions) session.close();
      for (const socket of sockets) {
        if ((inFlight.get(socket) ?? 0) === 0 && !isHttp2(socket)) socket.destroy();
      }
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      await closed;
      clearTimeout(deadline);
    },
  };
}
