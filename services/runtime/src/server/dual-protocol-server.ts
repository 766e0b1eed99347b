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
  const http1 = createHttp1Server({ keepAliveTimeout: 65_000 }, handler);
  const http2 = createHttp2Server({}, handler);
  http2.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  const net = createNetServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let head = Buffer.alloc(0);
    const route = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      if (head.length < http2Preface.length) {
        socket.once("data", route);
        return;
      }
      socket.pause();
      socket.unshift(head);
      const target = head.subarray(0, http2Preface.length).equals(http2Preface) ? http2 : http1;
      target.emit("connection", socket);
      socket.resume();
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
      const closed = new Promise<void>((resolve) => net.close(() => resolve()));
      for (const session of sessions) session.close();
      http1.closeIdleConnections();
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      const idle = async (): Promise<void> => {
        while (sockets.size > 0) {
          http1.closeIdleConnections();
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await Promise.all([closed, idle()]);
      clearTimeout(deadline);
    },
  };
}
