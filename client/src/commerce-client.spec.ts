import { expect } from "chai";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createCommerceClient } from "./commerce-client.js";

/** A server on port 0 that answers every request with `answer` and records its headers. */
async function startServer(answer: (response: ServerResponse) => void): Promise<{
  readonly baseUrl: string;
  readonly requests: IncomingHttpHeaders[];
  readonly server: Server;
}> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    requests.push(request.headers);
    request.resume();
    request.on("end", () => answer(response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, requests, server };
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

const json = (status: number, body: unknown) => (response: ServerResponse) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

describe("createCommerceClient", () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server !== undefined) await stop(server);
    server = undefined;
  });

  it("sends the bearer token on every call, asking a token function each time, and none when it answers undefined", async () => {
    const started = await startServer(json(200, []));
    server = started.server;
    await createCommerceClient({ baseUrl: started.baseUrl, token: "t1" }).GET("/api/orders/my");
    let current: string | undefined = "t2";
    const following = createCommerceClient({ baseUrl: started.baseUrl, token: () => current });
    await following.GET("/api/orders/my");
    current = undefined;
    await following.GET("/api/orders/my");
    await createCommerceClient({ baseUrl: started.baseUrl }).GET("/api/orders/my");
    expect(started.requests.map((headers) => headers.authorization)).to.deep.equal([
      "Bearer t1",
      "Bearer t2",
      undefined,
      undefined,
    ]);
  });

  it("hands the platform's error body over as it is", async () => {
    const body = { status: 404, code: "NOT_FOUND", message: "order not found" };
    const started = await startServer(json(404, body));
    server = started.server;
    const answer = await createCommerceClient({ baseUrl: started.baseUrl }).GET("/api/orders/{orderId}", {
      params: { path: { orderId: "ord_1" } },
    });
    expect(answer.response.status).to.equal(404);
    expect(answer.data).to.equal(undefined);
    expect(answer.error).to.deep.equal(body);
  });

  it("gives an error answer without that body (a proxy's page, an empty body, other JSON) the same shape, code UNKNOWN", async () => {
    const answers: [number, string, string | undefined, string][] = [
      [502, "Bad Gateway", "text/html", "<html>bad gateway</html>"],
      [503, "Service Unavailable", undefined, ""],
      [500, "Internal Server Error", "application/json", '{"error":"boom"}'],
    ];
    let next = 0;
    const started = await startServer((response) => {
      const [status, statusText, type, text] = answers[next++] ?? [500, "", undefined, ""];
      response.writeHead(status, statusText, type === undefined ? {} : { "content-type": type }).end(text);
    });
    server = started.server;
    const shop = createCommerceClient({ baseUrl: started.baseUrl });
    for (const [status, statusText] of answers) {
      const answer = await shop.GET("/api/products");
      expect(answer.response.status).to.equal(status);
      expect(answer.data).to.equal(undefined);
      expect(answer.error).to.deep.equal({
        status,
        code: "UNKNOWN",
        message: `HTTP ${status} ${statusText}`,
      });
    }
  });

  it("answers a 204 with neither data nor error", async () => {
    const started = await startServer((response) => response.writeHead(204).end());
    server = started.server;
    const answer = await createCommerceClient({ baseUrl: started.baseUrl, token: "t" }).DELETE(
      "/api/products/{productId}",
      { params: { path: { productId: "p1" } } },
    );
    expect(answer.response.status).to.equal(204);
    expect(answer.data).to.equal(undefined);
    expect(answer.error).to.equal(undefined);
  });

  it("calls through the fetch it is given", async () => {
    const seen: string[] = [];
    const shop = createCommerceClient({
      baseUrl: "http://shop.test",
      fetch: (request) => {
        seen.push(`${request.method} ${request.url}`);
        return Promise.resolve(Response.json([{ id: "books", name: "Books" }]));
      },
    });
    const answer = await shop.GET("/api/categories");
    expect(answer.data).to.deep.equal([{ id: "books", name: "Books" }]);
    expect(seen).to.deep.equal(["GET http://shop.test/api/categories"]);
  });
});
