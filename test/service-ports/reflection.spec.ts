/**
 * The services' own ports seen from outside clients that have none of our .proto files:
 * grpcurl (built from its Go module, scripts/testing/grpcurl.ts) and `buf curl`. Both learn
 * the schema from the port's gRPC server reflection, without a credential; calling a method
 * still takes the credential its access rule demands (ADR 0012, ADR 0105).
 * grpcurl asks reflection v1; `buf curl` is made to ask v1alpha.
 * Runs against any deployment: see support/service-ports.ts for the environment it reads.
 */
import type { DescService } from "@bufbuild/protobuf";
import { expect } from "chai";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { internalServices, publicServices } from "@commerce/runtime/contract";
import { edgeCredentialHeader, peerCredentialHeader } from "@commerce/runtime/identity";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { Health } from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";
import { ServerReflection } from "@commerce/runtime/gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ServerReflectionV1alpha } from "@commerce/runtime/gen/grpc/reflection/v1alpha/reflection_pb.js";
import { ensureGrpcurl } from "#testing/grpcurl.js";
import {
  asEdge,
  asPeer,
  forgedIdentity,
  serviceClient,
  serviceNames,
  serviceUrl,
  type ServiceName,
} from "./support/service-ports.js";

const buf = join(import.meta.dirname, "..", "..", "node_modules", ".bin", "buf");
const admin = { userId: 1, email: "ops@reflection.test", role: "ADMIN" } as const;
/** What every port serves beside its services. */
const protocolServices: readonly DescService[] = [Health, ServerReflection, ServerReflectionV1alpha];

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a client to its end, whatever it exits with. */
function run(command: string, args: readonly string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 15_000 }, (error, stdout, stderr) => {
      if (error === null) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === "number") resolve({ code: error.code, stdout, stderr });
      else reject(new Error(`${command} could not start or did not finish in time`, { cause: error }));
    });
  });
}

/** The contract's services of one deployable service: those of its package. */
function apisOf(service: ServiceName): DescService[] {
  return [...publicServices, ...internalServices].filter((api) =>
    api.typeName.startsWith(`commerce.${service}.v1.`),
  );
}

/** Each distinct port under test and what it must serve (every service's, in embedded mode). */
function ports(): Map<string, DescService[]> {
  const byUrl = new Map<string, DescService[]>();
  for (const service of serviceNames) {
    const url = serviceUrl(service);
    byUrl.set(url, [...(byUrl.get(url) ?? []), ...apisOf(service)]);
  }
  for (const [url, apis] of byUrl) byUrl.set(url, [...apis, ...protocolServices]);
  return byUrl;
}

const lines = (items: readonly string[]): string =>
  [...items]
    .sort()
    .map((item) => `${item}\n`)
    .join("");
const hostPort = (url: string): string => new URL(url).host;

describe("Service ports: gRPC server reflection, for clients without our .proto files", function () {
  // The first run on a machine builds grpcurl (a link when Go's caches are warm, minutes if not).
  this.timeout(60_000);
  let grpcurl: string;

  before(async function () {
    this.timeout(20 * 60_000);
    grpcurl = await ensureGrpcurl();
  });

  it("grpcurl lists each port's services, with health and both reflection versions, without a credential", async () => {
    for (const [url, services] of ports()) {
      const listed = await run(grpcurl, ["-plaintext", hostPort(url), "list"]);
      expect(listed, url).to.deep.equal({
        code: 0,
        stdout: lines(services.map((service) => service.typeName)),
        stderr: "",
      });
    }
  });

  it("buf curl lists each port's methods, the same over reflection v1 and v1alpha", async () => {
    for (const [url, services] of ports()) {
      const methods = lines(
        services.flatMap((s) => s.methods.map((method) => `${s.typeName}/${method.name}`)),
      );
      for (const protocol of ["grpc-v1", "grpc-v1alpha"]) {
        const listed = await run(buf, [
          "curl",
          "--protocol",
          "grpc",
          "--http2-prior-knowledge",
          "--reflect-protocol",
          protocol,
          "--list-methods",
          url,
        ]);
        expect(listed, `${url} ${protocol}`).to.deep.equal({ code: 0, stdout: methods, stderr: "" });
      }
    }
  });

  it("grpcurl describes an internal method, its access rule and its request's rules from the port alone", async () => {
    const product = hostPort(serviceUrl("product"));
    const method = await run(grpcurl, [
      "-plaintext",
      product,
      "describe",
      "commerce.product.v1.InventoryService.ReleaseStock",
    ]);
    expect(method.code, method.stderr).to.equal(0);
    expect(method.stdout).to.match(
      /^commerce\.product\.v1\.InventoryService\.ReleaseStock is a method:\nrpc ReleaseStock \( \.commerce\.product\.v1\.ReleaseStockRequest \) returns \( \.commerce\.product\.v1\.ReleaseStockResponse \) \{\n/,
    );
    // The option's value is decoded: the client resolved commerce/options and descriptor.proto.
    expect(method.stdout).to.include("access: ACCESS_INTERNAL");
    const request = await run(grpcurl, [
      "-plaintext",
      product,
      "describe",
      "commerce.product.v1.ReleaseStockRequest",
    ]);
    expect(request.stdout).to.include(
      "string order_id = 1 [(.buf.validate.field) = { string: { min_len: 1 } }];\n",
    );
    const unknown = await run(grpcurl, [
      "-plaintext",
      product,
      "describe",
      "commerce.product.v1.NoSuchService",
    ]);
    expect(unknown).to.deep.equal({
      code: 1,
      stdout: "",
      stderr:
        'Failed to resolve symbol "commerce.product.v1.NoSuchService": Symbol not found: commerce.product.v1.NoSuchService\n',
    });
  });

  /** A product of its own, whose stock and price an internal read reports. */
  async function createProduct(): Promise<string> {
    const product = {
      name: `Reflected ${randomUUID()}`,
      price: 12.5,
      stock: 7,
      brand: "Reflection",
      categoryId: "books",
    };
    const { ids } = await serviceClient("product", ProductService).bulkCreateProducts(
      { products: [product] },
      { headers: forgedIdentity(admin, asEdge("product")) },
    );
    expect(ids).to.have.length(1);
    return ids[0]!;
  }

  const pricedProduct = (productId: string): unknown => ({
    products: [{ productId, unitPriceMinor: "1250", active: true, stock: 7 }],
  });

  it("grpcurl: an internal method is refused (Unauthenticated) without the peer credential, answered with it", async () => {
    const productId = await createProduct();
    const product = hostPort(serviceUrl("product"));
    const call = (headers: readonly string[]): Promise<Outcome> =>
      run(grpcurl, [
        "-plaintext",
        ...headers.flatMap((header) => ["-H", header]),
        "-d",
        JSON.stringify({ product_ids: [productId] }),
        product,
        "commerce.product.v1.InventoryService/GetProductsForOrder",
      ]);
    const refusal = {
      // grpcurl exits with 64 plus the status code: UNAUTHENTICATED is 16.
      code: 80,
      stdout: "",
      stderr: "ERROR:\n  Code: Unauthenticated\n  Message: a peer service credential is required\n",
    };
    expect(await call([]), "no credential").to.deep.equal(refusal);
    expect(
      await call([`${edgeCredentialHeader}: ${asEdge("product").edge}`]),
      "the edge credential",
    ).to.deep.equal(refusal);
    const answered = await call([`${peerCredentialHeader}: ${asPeer("order", "product").peer}`]);
    expect(answered.code, answered.stderr).to.equal(0);
    expect(JSON.parse(answered.stdout)).to.deep.equal(pricedProduct(productId));
  });

  it("buf curl over reflection v1alpha: the same method refused without the peer credential, answered with it", async () => {
    const productId = await createProduct();
    const call = (headers: readonly string[]): Promise<Outcome> =>
      run(buf, [
        "curl",
        "--protocol",
        "grpc",
        "--http2-prior-knowledge",
        "--reflect-protocol",
        "grpc-v1alpha",
        ...headers.flatMap((header) => ["-H", header]),
        "-d",
        JSON.stringify({ productIds: [productId] }),
        `${serviceUrl("product")}/commerce.product.v1.InventoryService/GetProductsForOrder`,
      ]);
    const refused = await call([]);
    // buf curl exits with the status code shifted three bits left: UNAUTHENTICATED (16) is 128.
    expect(refused.code, refused.stderr).to.equal(128);
    expect(JSON.parse(refused.stderr)).to.deep.equal({
      code: "unauthenticated",
      message: "a peer service credential is required",
    });
    const answered = await call([`${peerCredentialHeader}: ${asPeer("order", "product").peer}`]);
    expect(answered.code, answered.stderr).to.equal(0);
    expect(JSON.parse(answered.stdout)).to.deep.equal(pricedProduct(productId));
  });
});
