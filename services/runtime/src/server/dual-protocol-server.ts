/**
 * One TCP port that speaks HTTP/2 cleartext (gRPC, Connect) and HTTP/1.1 (Connect, gRPC-Web,
 * REST, probes). Node's `http2.createServer` only offers `allowHTTP1` with TLS, so the first
 * bytes of each connection decide: the HTTP/2 preface starts with "PRI", no HTTP/1 method does.
 */
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { createServer as createHttp1Server } from "node:http";
import { createServer as createHttp2Server, type Http2Session } from "node:http2";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";

/** A handler for requests of both protocols, shaped like Connect's Node adapter. */
export type DualRequestHandler = ReturnType<typeof connectNodeAdapter>;
export type DualRequest = Parameters<DualRequestHandler>[0];
export type DualResponse = Parameters<DualRequestHandler>[1];

export interface DualProtocolServer {
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, lets requests in flight finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
}

const http2Preface = Buffer.from("PRI");

export function createDualProtocolServer(handler: DualRequestHandler): DualProtocolServer {
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  // HTTP/1 requests in flight per socket, so that closing can end idle keep-alive connections
  // at once and busy ones as soon as their response is sent.
  const inFlight = new Map<Socket, number>();
  let closing = false;
  const http2Sockets = new WeakSet<Socket>();
  const isHttp2 = (socket: Socket): boolean => http2Sockets.has(socket);
  const http1 = createHttp1Server({ keepAliveTimeout: 65_000 }, (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once("close", () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (closing && left === 0) socket.destroy();
    });
    handler(req, res);
  });
  const http2 = createHttp2Server({}, handler);
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
