/**
 * Deadlines and cancellation through the edge, on both ways the edge reaches a service: the
 * in-process transport (embedded mode) and gRPC over the network (a service in its own
 * process). A handler that never answers makes the edge answer 504 at the deadline, and the
 * handler's signal fires; a client that goes away aborts the handler's signal; the signal is the
 * one handlers pass to the store, which then refuses to go on.
 */
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ProductSchema,
  ProductService,
  type Product,
} from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { noRevokedAccounts, createDestinationTrust, sha256 } from "@commerce/runtime/identity";
import { createLogger } from "@commerce/runtime/logging";
import { type DualProtocolServer, createServiceHost, type ServiceHost } from "@commerce/runtime/server";
import { type Collection, type DocumentStore, createEmbeddedStoreProvider } from "@commerce/runtime/store";
import { startLoopbackEdge } from "./testing/loopback-edge.js";

interface Seen {
  /** Why the handler's signal fired, once it did. */
  reason: unknown;
  /** What a store call made after the abort did. */
  storeAfterAbort: unknown;
}

/** A Product service whose GetProduct waits for its signal and then tries the store once more. */
function stallingProducts(seen: Seen, collection: Collection<{ _id: string }>) {
  return {
    services: [ProductService],
    register(router: ConnectRouter) {
      router.service(ProductService, {
        async getProduct(_req, ctx): Promise<Product> {
          await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
          seen.reason = ctx.signal.reason;
          seen.storeAfterAbort = await collection.get("anything", ctx.signal).then(
            () => "read anyway",
            (error: unknown) => error,
          );
          return create(ProductSchema, {});
        },
      });
    },
  };
}

for (const path of ["in process", "over gRPC"] as const) {
  describe(`the edge's deadlines and cancellation (${path})`, () => {
    const edgeCredential = randomUUID();
    const seen: Seen = { reason: undefined, storeAfterAbort: undefined };
    let dir: string;
    let store: DocumentStore;
    let host: ServiceHost;
    let edgeServer: DualProtocolServer;
    let baseUrl: string;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "edge-cancellation-"));
      const stores = createEmbeddedStoreProvider({ dataDir: dir });
      store = await stores.open("probe");
      const collection = await store.collection<{ _id: string }>({ name: "things" });
      const logger = createLogger("silent", "test");
      host = createServiceHost({
        routes: [stallingProducts(seen, collection)],
        logger,
        maxBodyBytes: 1 << 20,
        trust: createDestinationTrust([ProductService], {
          edgeCredentialSha256: sha256(edgeCredential),
          callers: new Map(),
        }),
        revoked: noRevokedAccounts,
        isReady: () => true,
      });
      let transport: Transport = host.transport;
      if (path === "over gRPC") {
        const port = await host.listen(0, "127.0.0.1");
        transport = createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` });
      }
      ({ base: baseUrl, server: edgeServer } = await startLoopbackEdge({
        services: [ProductService],
        transportFor: () => transport,
        edgeCredentialFor: () => edgeCredential,
        logger,
        timeoutMs: 300,
      }));
    });

    beforeEach(() => {
      seen.reason = undefined;
      seen.storeAfterAbort = undefined;
    });

    after(async () => {
      await edgeServer.close();
      await host.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });

    it("answers 504 with the error body at the deadline, and the handler's signal fires", async () => {
      // The handler never answers on its own: any answer at all is the deadline's.
      const response = await fetch(`${baseUrl}/api/products/p1`);
      expect(response.status).to.equal(504);
      expect(await response.json()).to.deep.equal({
        status: 504,
        code: "DEADLINE_EXCEEDED",
        message: "the service did not answer in time",
      });
      await waitFor(() => seen.storeAfterAbort !== undefined);
      // Over the network the deadline travels as grpc-timeout: the service's own timer and the
      // client's cancellation at the same instant race, and either one ends the call.
      const expected =
        path === "in process" ? [Code.DeadlineExceeded] : [Code.DeadlineExceeded, Code.Canceled];
      expect(ConnectError.from(seen.reason).code).to.be.oneOf(expected);
      expect(seen.storeAfterAbort).to.be.instanceOf(Error);
    });

    it("after a 504 serves the next request on the same connection under a fresh signal", async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await get(`${baseUrl}/api/products/p3`, agent);
        await waitFor(() => seen.storeAfterAbort !== undefined);
        seen.reason = undefined;
        seen.storeAfterAbort = undefined;
        // The handler answered after the 504: the edge dropped that answer and kept the socket.
        const second = await get(`${baseUrl}/api/products/p4`, agent);
        expect([first.status, second.status]).to.deep.equal([504, 504]);
        expect(second.reusedSocket).to.equal(true);
        await waitFor(() => seen.storeAfterAbort !== undefined);
        const expected =
          path === "in process" ? [Code.DeadlineExceeded] : [Code.DeadlineExceeded, Code.Canceled];
        expect(ConnectError.from(seen.reason).code).to.be.oneOf(expected);
      } finally {
        agent.destroy();
      }
    });

    it("aborts the handler's signal when the client goes away", async () => {
      const client = request(`${baseUrl}/api/products/p2`);
      client.on("error", () => undefined);
      client.end();
      await new Promise((resolve) => setTimeout(resolve, 100));
      client.destroy();
      await waitFor(() => seen.storeAfterAbort !== undefined);
      expect(ConnectError.from(seen.reason).code).to.equal(Code.Canceled);
      expect(seen.storeAfterAbort).to.be.instanceOf(Error);
    });
  });
}

/** One GET on `agent`: its status, and whether it went over a connection used before. */
function get(url: string, agent: Agent): Promise<{ status: number; reusedSocket: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, reusedSocket: req.reusedSocket }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the handler");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
