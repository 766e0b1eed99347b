/**
 * The ceiling the edge and the service port are compared with: a bare Node server answering a
 * fixed body, on the same machine, measured by the same load generator. Prints its port on
 * stdout. By default `node:http` with a fixed JSON body; with `--h2`, `node:http2` (h2c)
 * answering every request with a fixed gRPC message and an OK status trailer.
 */
import { createServer } from "node:http";
import { createServer as createHttp2Server } from "node:http2";
import type { AddressInfo, Server } from "node:net";

const body = JSON.stringify({
  id: 1,
  fullName: "Asha Verma",
  email: "asha@example.test",
  phoneNo: "+919876543210",
  role: "CUSTOMER",
  createdAt: "2026-01-01T00:00:00",
});

function http1(): Server {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

function h2c(): Server {
  // A 5-byte gRPC envelope around the JSON bytes: the client does not decode them.
  const message = Buffer.alloc(5 + Buffer.byteLength(body));
  message.writeUInt32BE(Buffer.byteLength(body), 1);
  message.write(body, 5);
  const server = createHttp2Server();
  server.on("stream", (stream) => {
    stream.resume();
    stream.respond({ ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(message);
  });
  return server;
}

const server = process.argv.includes("--h2") ? h2c() : http1();
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`REST edge: http://127.0.0.1:${(server.address() as AddressInfo).port}/api\n`);
});
process.once("SIGTERM", () => {
  server.close(() => process.exit(0));
  // An HTTP/2 client may keep its session open: a reference server does not wait for it.
  setTimeout(() => process.exit(0), 1_000).unref();
});
