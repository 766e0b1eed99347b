/**
 * A request whose body breaks off mid-way (a malformed chunk, a client gone): the server has
 * answered it already, or nobody is left to answer, so the edge neither answers again nor logs
 * a failure of its own.
 */
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { createRouterTransport } from "@connectrpc/connect";
import { expect } from "chai";
import type { DualProtocolServer } from "@commerce/runtime/server";
import { capturedLogger, rawExchange } from "@commerce/runtime/testing";
import { startLoopbackEdge } from "./testing/loopback-edge.js";

describe("the edge and a request body that breaks off", () => {
  const { logger, lines } = capturedLogger();
  let server: DualProtocolServer;
  let base: string;
  let calls = 0;

  before(async () => {
    const transport = createRouterTransport(({ service }) => {
      service(ProductService, {
        listCategories() {
          calls += 1;
          return {};
        },
      });
    });
    ({ base, server } = await startLoopbackEdge({
      services: [ProductService],
      transportFor: () => transport,
      logger,
    }));
  });

  after(() => server.close(100));

  it("answers once, with the server's 400, calls nothing and logs no failure", async () => {
    const request =
      "GET /api/categories HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\nnot-a-size\r\n\r\n";
    const answer = await rawExchange(base, request);
    expect(answer.status).to.equal(400);
    expect(JSON.parse(answer.body)).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: "malformed HTTP request",
    });
    // The edge hears of the broken request when the connection closes, which rawExchange did
    // on the answer: a failure would be logged within moments of it (an absence has no event
    // to wait for).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answer.raw.match(/HTTP\/1\.1 /g)).to.have.length(1);
    expect(calls).to.equal(0);
    expect(lines.filter((line) => Number(line["level"]) >= 40)).to.deep.equal([]);
  });
});
