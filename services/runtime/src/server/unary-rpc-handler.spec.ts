import { expect } from "chai";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import {
  compressionGzip,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { ProductService } from "../../gen/commerce/product/v1/product_pb.js";
import { noRevokedAccounts } from "../identity/revoked-accounts.js";
import { createDestinationTrust, sha256 } from "../identity/request-trust.js";
import { createLogger } from "../logging/logger.js";
import { createServiceHost, type ServiceHost } from "./service-host.js";

/**
 * The service port's unary path, seen from standard Connect clients of each protocol: what a
 * client gets must not depend on whether that path or Connect's adapter served it.
 */
describe("createUnaryRpcHandler (through the service host)", () => {
  let host: ServiceHost;
  let baseUrl: string;
  const longDescription = "x".repeat(4_000);
  /** Why each slow call's signal fired, as the handler saw it. */
  const abortReasons: unknown[] = [];

  before(async () => {
    host = createServiceHost({
      routes: [
        {
          services: [ProductService],
          register(router) {
            router.service(ProductService, {
              async getProduct(req, ctx) {
                if (req.productId === "missing") {
                  throw new ConnectError("product not found", Code.NotFound, { "x-reason": "gone" });
                }
                if (req.productId === "many-listeners") {
                  // As a read of many products does: a store call per product, each listening.
                  const listeners = Array.from({ length: 20 }, () => () => undefined);
                  for (const listener of listeners) ctx.signal.addEventListener("abort", listener);
                  for (const listener of listeners) ctx.signal.removeEventListener("abort", listener);
                }
                if (req.productId === "slow") {
                  await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
                  abortReasons.push(ctx.signal.reason);
                  throw ctx.signal.reason;
                }
                ctx.responseHeader.set("x-served-by", "test");
                ctx.responseTrailer.set("x-stock-source", "ledger");
                return {
                  id: req.productId,
                  name: "Kettle",
                  description: req.productId === "long" ? longDescription : "",
                  price: 12.5,
                  stock: 3,
                };
              },
            });
          },
        },
      ],
      logger: createLogger("silent", "test"),
      maxBodyBytes: 1_024,
      trust: createDestinationTrust([ProductService], {
        edgeCredentialSha256: sha256("edge"),
        callers: new Map(),
      }),
      revoked: noRevokedAccounts,
      isReady: () => true,
    });
    baseUrl = `http://127.0.0.1:${await host.listen(0, "127.0.0.1")}`;
  });

  after(() => host.close());

  const transports: Record<string, () => Transport> = {
    "Connect JSON over HTTP/1.1": () => createConnectTransport({ baseUrl, httpVersion: "1.1" }),
    "Connect binary over h2c": () =>
      createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true }),
    "gRPC over h2c": () => createGrpcTransport({ baseUrl }),
    "gRPC-Web over HTTP/1.1 (Connect's adapter)": () =>
      createGrpcWebTransport({ baseUrl, httpVersion: "1.1" }),
  };

  for (const [name, transport] of Object.entries(transports)) {
    describe(name, () => {
      it("returns the message with the handler's response headers and trailers", async () => {
        const headers = new Headers();
        const trailers = new Headers();
        const product = await createClient(ProductService, transport()).getProduct(
          { productId: "p-1" },
          {
            onHeader: (h) => h.forEach((v, k) => headers.set(k, v)),
            onTrailer: (t) => t.forEach((v, k) => trailers.set(k, v)),
          },
        );
        expect(product.id).to.equal("p-1");
        expect(product.price).to.equal(12.5);
        expect(headers.get("x-served-by")).to.equal("test");
        expect(trailers.get("x-stock-source")).to.equal("ledger");
      });

      it("returns a handler's error with its code, message and metadata", async () => {
        const error = await createClient(ProductService, transport())
          .getProduct({ productId: "missing" })
          .then(
            () => undefined,
            (e: unknown) => ConnectError.from(e),
          );
        expect(error?.code).to.equal(Code.NotFound);
        expect(error?.rawMessage).to.equal("product not found");
        expect(error?.metadata.get("x-reason")).to.equal("gone");
      });

      it("refuses an invalid request before the handler (validation interceptor)", async () => {
        const error = await createClient(ProductService, transport())
          .getProduct({ productId: "" })
          .then(
            () => undefined,
            (e: unknown) => ConnectError.from(e),
          );
        expect(error?.code).to.equal(Code.InvalidArgument);
        expect(error?.rawMessage).to.equal("productId: must be at least 1 characters");
      });

      it("aborts the handler's signal at the caller's deadline", async () => {
        abortReasons.length = 0;
        // The deadline is only sent, not kept by the client (which would cancel at the same
        // instant and race the server): the server's own timer must end the call.
        const deadline = name.startsWith("Connect")
          ? { "connect-timeout-ms": "50" }
          : { "grpc-timeout": "50m" };
        const error = await createClient(ProductService, transport())
          .getProduct({ productId: "slow" }, { headers: deadline })
          .then(
            () => undefined,
            (e: unknown) => ConnectError.from(e),
          );
        expect(error?.code).to.equal(Code.DeadlineExceeded);
        while (abortReasons.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(ConnectError.from(abortReasons[0]).code).to.equal(Code.DeadlineExceeded);
      });

      it("lets a handler's calls listen to its signal without a listener-leak warning", async () => {
        const warnings: string[] = [];
        const onWarning = (warning: Error): void => {
          warnings.push(warning.name);
        };
        process.on("warning", onWarning);
        try {
          await createClient(ProductService, transport()).getProduct({ productId: "many-listeners" });
          await new Promise((resolve) => setImmediate(resolve));
        } finally {
          process.off("warning", onWarning);
        }
        expect(warnings).to.deep.equal([]);
      });

      it("aborts the handler's signal when the client cancels", async () => {
        abortReasons.length = 0;
        const caller = new AbortController();
        const call = createClient(ProductService, transport())
          .getProduct({ productId: "slow" }, { signal: caller.signal })
          .then(
            () => undefined,
            (e: unknown) => ConnectError.from(e),
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
        caller.abort();
        expect((await call)?.code).to.equal(Code.Canceled);
        while (abortReasons.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(ConnectError.from(abortReasons[0]).code).to.equal(Code.Canceled);
      });
    });
  }

  it("compresses a large response for a client that accepts gzip, and reads a gzip request", async () => {
    for (const transport of [
      createConnectTransport({
        baseUrl,
        httpVersion: "1.1",
        sendCompression: compressionGzip,
        compressMinBytes: 1,
      }),
      createGrpcTransport({ baseUrl, sendCompression: compressionGzip, compressMinBytes: 1 }),
    ]) {
      const headers = new Headers();
      const product = await createClient(ProductService, transport).getProduct(
        { productId: "long" },
        { onHeader: (h) => h.forEach((v, k) => headers.set(k, v)) },
      );
      expect(product.description).to.equal(longDescription);
      expect(headers.get("content-encoding") ?? headers.get("grpc-encoding")).to.equal("gzip");
    }
  });

  it("refuses a request body above the size limit with RESOURCE_EXHAUSTED", async () => {
    for (const transport of [
      createConnectTransport({ baseUrl, httpVersion: "1.1" }),
      createGrpcTransport({ baseUrl }),
    ]) {
      const error = await createClient(ProductService, transport)
        .getProduct({ productId: "y".repeat(2_000) })
        .then(
          () => undefined,
          (e: unknown) => ConnectError.from(e),
        );
      expect(error?.code).to.equal(Code.ResourceExhausted);
    }
  });

  it("leaves unknown paths to the probes' fallback", async () => {
    const response = await fetch(`${baseUrl}/healthz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: "ok" });
  });
});
