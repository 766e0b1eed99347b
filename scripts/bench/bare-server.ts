/**
 * The ceiling the edge is compared with: a bare Node `http` server answering a fixed JSON body,
 * on the same machine, measured by the same load generator. Prints its port on stdout.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const body = JSON.stringify({
  id: 1,
  fullName: "Asha Verma",
  email: "asha@example.test",
  phoneNo: "+919876543210",
  role: "CUSTOMER",
  createdAt: "2026-01-01T00:00:00",
});
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`REST edge: http://127.0.0.1:${(server.address() as AddressInfo).port}/api\n`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
