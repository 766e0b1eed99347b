/**
 * Unary gRPC on the wire, the same for the side that serves (server/unary-rpc-handler.ts) and
 * the side that calls (grpc-peer-transport.ts): a message in its 5-byte envelope, and web
 * `Headers` as the object Node's HTTP/2 takes.
 */
import type { OutgoingHttpHeaders } from "node:http2";

/** `data` in its envelope: one flags byte (1: compressed), the length, the message. */
export function envelope(flags: number, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + data.byteLength);
  out.writeUInt8(flags, 0);
  out.writeUInt32BE(data.byteLength, 1);
  out.set(data, 5);
  return out;
}

/** `headers` as Node's object, added to `into` when given. */
export function toNodeHeaders(headers: Headers, into: OutgoingHttpHeaders = {}): OutgoingHttpHeaders {
  headers.forEach((value, key) => {
    into[key] = value;
  });
  return into;
}
