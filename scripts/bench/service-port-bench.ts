/**
 * The services' own port (GRPC_PORT) in embedded mode, loaded directly, the way Envoy will
 * reach it: GetProduct of one seeded product as Connect JSON over HTTP/1.1 (autocannon) and as
 * gRPC over h2c (h2load, 4 connections × 32 streams), each beside the same load on a bare Node
 * server of that protocol and on the fixed-product upstream (fixed-product-upstream.ts: the
 * same method answered with a constant), with the ratios. Figures only; nothing is asserted,
 * except that each target answers the call correctly before it is loaded.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  GetProductRequestSchema,
  ProductService,
} from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { startChildServer, type ChildServer } from "./child-server.js";
import { h2loadAvailable, measureGrpc } from "./h2-load.js";
import { formatResult, measure, type LoadResult } from "./load.js";

export interface ServicePortBenchOptions {
  /** The platform's REST edge, to seed the product through the admin API. */
  readonly edgeUrl: string;
  /** The platform's service port. */
  readonly grpcUrl: string;
  readonly adminToken: string;
  readonly connections: number;
  readonly seconds: number;
}

const getProductPath = `/${ProductService.typeName}/${ProductService.method.getProduct.name}`;

async function seedProduct(edgeUrl: string, adminToken: string): Promise<string> {
  const headers = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
  const [category] = (await (await fetch(`${edgeUrl}/api/categories`)).json()) as { id: string }[];
  if (category === undefined) throw new Error("the platform has no categories");
  const response = await fetch(`${edgeUrl}/api/products/bulk`, {
    method: "POST",
    headers,
    body: JSON.stringify([
      {
        name: "Service port bench product",
        description: "Seeded by the service port benchmark",
        price: 499.99,
        stock: 100,
        brand: "Bench",
        categoryId: category.id,
      },
    ]),
  });
  if (!response.ok) throw new Error(`seeding: ${response.status} ${await response.text()}`);
  const [id] = ((await response.json()) as { ids: string[] }).ids;
  if (id === undefined) throw new Error("the product was not created");
  return id;
}

/** Loading a target that answers with an error would measure the error path. */
async function expectProduct(baseUrl: string, productId: string): Promise<void> {
  const client = createClient(ProductService, createGrpcTransport({ baseUrl }));
  const product = await client.getProduct({ productId });
  if (product.id === "") throw new Error(`${baseUrl} answered GetProduct without a product`);
}

function ratio(label: string, part: LoadResult, whole: LoadResult): string {
  return `  ratio ${label}: ${((100 * part.requestsPerSecond) / whole.requestsPerSecond).toFixed(1)}%`;
}

/** The service port's figure beside the bare server's and the fixed upstream's, and its ratios. */
function comparison(
  labels: { readonly bare: string; readonly fixed: string; readonly service: string },
  results: { readonly bare: LoadResult; readonly fixed: LoadResult; readonly service: LoadResult },
): string[] {
  return [
    formatResult(labels.bare, results.bare),
    formatResult(labels.fixed, results.fixed),
    formatResult(labels.service, results.service),
    ratio("service / bare", results.service, results.bare),
    ratio("service / fixed upstream", results.service, results.fixed),
  ];
}

async function withServer<T>(start: Promise<ChildServer>, use: (url: string) => Promise<T>): Promise<T> {
  const server = await start;
  try {
    return await use(server.url);
  } finally {
    await server.stop();
  }
}

export async function benchServicePort(options: ServicePortBenchOptions): Promise<string[]> {
  const productId = await seedProduct(options.edgeUrl, options.adminToken);
  const { connections, seconds } = options;
  const lines: string[] = [];

  // Connect JSON over HTTP/1.1: the edge's protocol to a split-out service, and curl's.
  const json = {
    method: "POST" as const,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ productId }),
    connections,
    seconds,
  };
  const bare = await withServer(startChildServer("bare-server.ts"), (url) => measure({ ...json, url }));
  const fixed = await withServer(startChildServer("fixed-product-upstream.ts"), (url) =>
    measure({ ...json, url: `${url}${getProductPath}` }),
  );
  const service = await measure({ ...json, url: `${options.grpcUrl}${getProductPath}` });
  lines.push(
    ...comparison(
      {
        bare: "bare Node http, fixed JSON (POST)",
        fixed: "fixed-product upstream, Connect JSON h1",
        service: "service port, Connect JSON GetProduct h1",
      },
      { bare, fixed, service },
    ),
  );

  // gRPC over h2c: what Envoy will send.
  if (!(await h2loadAvailable())) {
    lines.push("gRPC over h2c: skipped, h2load is not installed (apt-get install nghttp2-client)");
    return lines;
  }
  const body = grpcRequest(productId);
  const grpc = { body, seconds };
  const bareH2 = await withServer(startChildServer("bare-server.ts", ["--h2"]), (url) =>
    measureGrpc({ ...grpc, url: `${url}${getProductPath}` }),
  );
  const fixedH2 = await withServer(startChildServer("fixed-product-upstream.ts"), async (url) => {
    await expectProduct(url, productId);
    return measureGrpc({ ...grpc, url: `${url}${getProductPath}` });
  });
  await expectProduct(options.grpcUrl, productId);
  const serviceH2 = await measureGrpc({ ...grpc, url: `${options.grpcUrl}${getProductPath}` });
  lines.push(
    ...comparison(
      {
        bare: "bare Node http2, fixed gRPC message",
        fixed: "fixed-product upstream, gRPC h2c",
        service: "service port, gRPC GetProduct h2c",
      },
      { bare: bareH2, fixed: fixedH2, service: serviceH2 },
    ),
    "  (h2c: h2load, 4 connections × 32 concurrent streams)",
  );
  return lines;
}

/** GetProductRequest in its 5-byte gRPC envelope (uncompressed). */
function grpcRequest(productId: string): Uint8Array {
  const message = toBinary(GetProductRequestSchema, create(GetProductRequestSchema, { productId }));
  const out = Buffer.alloc(5 + message.byteLength);
  out.writeUInt32BE(message.byteLength, 1);
  out.set(message, 5);
  return out;
}
