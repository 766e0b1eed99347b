import { expect } from "chai";
import { once } from "node:events";
import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { PayableOrderService } from "../../gen/commerce/order/v1/payable_pb.js";
import { createGrpcPeerTransport } from "./grpc-peer-transport.js";

/** A real gRPC server (Connect's Node adapter over h2c) answering GetPayableOrder as `answer` says. */
async function startPeer(
  answer: (orderId: string, headers: Headers, signal: AbortSignal) => Promise<void>,
  port = 0,
): Promise<{ server: Http2Server; url: string; stop(): Promise<void> }> {
  const sessions = new Set<ServerHttp2Session>();
  const server = createServer(
    connectNodeAdapter({
      routes: (router) => {
        router.service(PayableOrderService, {
          async getPayableOrder(request, context) {
            await answer(request.orderId, context.requestHeader, context.signal);
            context.responseHeader.set("x-peer", "answered");
            context.responseTrailer.set("x-peer-trailer", "done");
            return {
              orderId: request.orderId,
              customerId: "a@example.com",
              status: "CREATED",
              totalMinor: 3998n,
            };
          },
        });
      },
    }),
  );
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  const { port: bound } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${bound}`,
    async stop() {
      for (const session of sessions) session.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

/** A server that answers every request with `status` and nothing else: not a gRPC server. */
async function startHttpOnly(status: number): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { "content-type": "text/plain" });
    response.end("no");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      server.close();
      await once(server, "close");
    },
  };
}

const codeOf = async (call: Promise<unknown>): Promise<{ code: Code; message: string }> => {
  try {
    await call;
  } catch (error) {
    const connectError = ConnectError.from(error);
    return { code: connectError.code, message: connectError.rawMessage };
  }
  throw new Error("the call succeeded");
};

describe("createGrpcPeerTransport (unary gRPC on an HTTP/2 stream)", () => {
  const stops: (() => unknown)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  function clientOf(url: string, defaultTimeoutMs = 5_000): Client<typeof PayableOrderService> {
    const transport = createGrpcPeerTransport({ baseUrl: url, defaultTimeoutMs });
    stops.push(() => transport.close());
    return createClient(PayableOrderService, transport);
  }

  it("sends the request with its headers and deadline, and reads the answer, its headers and trailers", async () => {
    const seen: { orderId: string; credential: string | null; timeout: string | null }[] = [];
    const peer = await startPeer((orderId, headers) => {
      seen.push({
        orderId,
        credential: headers.get("x-peer-credential"),
        timeout: headers.get("grpc-timeout"),
      });
      return Promise.resolve();
    });
    stops.push(() => peer.stop());
    const client = clientOf(peer.url);
    let header: Headers | undefined;
    let trailer: Headers | undefined;
    const answer = await client.getPayableOrder(
      { orderId: "o-1" },
      {
        headers: { "x-peer-credential": "secret" },
        timeoutMs: 2_000,
        onHeader: (h) => (header = h),
        onTrailer: (t) => (trailer = t),
      },
    );

    expect(answer).to.deep.include({
      orderId: "o-1",
      customerId: "a@example.com",
      status: "CREATED",
      totalMinor: 3998n,
    });
    expect(seen).to.have.length(1);
    expect(seen[0]?.orderId).to.equal("o-1");
    expect(seen[0]?.credential).to.equal("secret");
    expect(seen[0]?.timeout).to.match(/^\d+m$/);
    expect(Number(seen[0]?.timeout?.slice(0, -1))).to.be.within(1_900, 2_000);
    expect(header?.get("x-peer")).to.equal("answered");
    expect(trailer?.get("x-peer-trailer")).to.equal("done");
    // Many calls on the one connection, at once.
    const many = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.getPayableOrder({ orderId: `o-${i}` })),
    );
    expect(many.map((m) => m.orderId)).to.deep.equal(Array.from({ length: 50 }, (_, i) => `o-${i}`));
  });

  it("gives a peer's error its code and message", async () => {
    const peer = await startPeer((orderId) => {
      throw new ConnectError(`order not found: ${orderId} (100 %)`, Code.NotFound);
    });
    stops.push(() => peer.stop());

    expect(await codeOf(clientOf(peer.url).getPayableOrder({ orderId: "o-9" }))).to.deep.equal({
      code: Code.NotFound,
      message: "order not found: o-9 (100 %)",
    });
  });

  it("fails with DEADLINE_EXCEEDED when the peer answers too late, and CANCELED when the caller gives up", async () => {
    // A peer that ignores its deadline: only the caller's own deadline ends the call.
    const peer = await startPeer(() => delay(1_000));
    stops.push(() => peer.stop());
    const client = clientOf(peer.url);

    const started = performance.now();
    expect((await codeOf(client.getPayableOrder({ orderId: "o-1" }, { timeoutMs: 100 }))).code).to.equal(
      Code.DeadlineExceeded,
    );
    expect(performance.now() - started).to.be.below(1_500);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(
      (await codeOf(client.getPayableOrder({ orderId: "o-2" }, { signal: controller.signal }))).code,
    ).to.equal(Code.Canceled);
  });

  it("fails with UNAVAILABLE when nothing listens, and reaches the peer once it is back on its address", async () => {
    const first = await startPeer(() => Promise.resolve());
    const url = first.url;
    const port = Number(new URL(url).port);
    const client = clientOf(url);
    expect((await client.getPayableOrder({ orderId: "o-1" })).orderId).to.equal("o-1");

    await first.stop();
    expect((await codeOf(client.getPayableOrder({ orderId: "o-2" }))).code).to.equal(Code.Unavailable);

    const second = await startPeer(() => Promise.resolve(), port);
    stops.push(() => second.stop());
    expect((await client.getPayableOrder({ orderId: "o-3" })).orderId).to.equal("o-3");
  });

  it("maps an answer that is not gRPC by its HTTP status", async () => {
    for (const [status, code] of [
      [503, Code.Unavailable],
      [404, Code.Unimplemented],
      [401, Code.Unauthenticated],
      [500, Code.Unknown],
    ] as const) {
      const server = await startHttpOnly(status);
      stops.push(() => server.stop());
      expect((await codeOf(clientOf(server.url).getPayableOrder({ orderId: "o-1" }))).code).to.equal(code);
    }
  });
});
