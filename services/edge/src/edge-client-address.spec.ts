/**
 * The local edge names the client's address to the services from the connection's peer, over
 * HTTP/1.1 and HTTP/2 alike, whatever the client sent in the header (ADR 0116).
 */
import { request } from "node:http";
import { connect as connectHttp2 } from "node:http2";
import { connect as connectTcp } from "node:net";
import { createRouterTransport } from "@connectrpc/connect";
import { expect } from "chai";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import type { DualProtocolServer } from "@commerce/runtime/server";
import { startLoopbackEdge } from "./testing/loopback-edge.js";

const forged = { "x-commerce-client-address": "203.0.113.9" };

/** A GET over HTTP/1.1 from `localAddress`; resolves with the status. */
function http1(base: string, path: string, localAddress: string): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, headers: forged, localAddress }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    });
    req.once("error", reject);
    req.end();
  });
}

/** A GET over HTTP/2 (prior knowledge) from `localAddress`; resolves with the status. */
function http2(base: string, path: string, localAddress: string): Promise<number> {
  const { hostname, port } = new URL(base);
  const session = connectHttp2(base, {
    createConnection: () => connectTcp({ host: hostname, port: Number(port), localAddress }),
  });
  return new Promise((resolve, reject) => {
    session.once("error", reject);
    const stream = session.request({ ":path": path, ...forged });
    stream.once("response", (headers) => {
      stream.resume();
      stream.once("end", () => {
        session.close();
        resolve(Number(headers[":status"]));
      });
    });
    stream.once("error", reject);
    stream.end();
  });
}

describe("the edge names the client's address", () => {
  const seen: (string | null)[] = [];
  let server: DualProtocolServer;
  let base: string;

  before(async () => {
    const transport = createRouterTransport(({ service }) => {
      service(ProductService, {
        listCategories(_request, ctx) {
          seen.push(ctx.requestHeader.get("x-commerce-client-address"));
          return {};
        },
      });
    });
    ({ base, server } = await startLoopbackEdge({
      services: [ProductService],
      transportFor: () => transport,
    }));
  });

  after(() => server.close(100));

  beforeEach(() => {
    seen.length = 0;
  });

  it("over HTTP/1.1, from the socket's peer", async () => {
    expect(await http1(base, "/api/categories", "127.0.0.2")).to.equal(200);
    expect(await http1(base, "/api/categories", "127.0.0.3")).to.equal(200);
    expect(seen).to.deep.equal(["127.0.0.2", "127.0.0.3"]);
  });

  it("over HTTP/2, from the session's peer", async () => {
    expect(await http2(base, "/api/categories", "127.0.0.4")).to.equal(200);
    expect(seen).to.deep.equal(["127.0.0.4"]);
  });
});
