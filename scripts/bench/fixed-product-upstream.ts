/**
 * The ceiling a service port is compared with: a process that answers
 * `commerce.product.v1.ProductService/GetProduct` with one fixed product for any id,
 * `commerce.order.v1.OrderService/PlaceOrder` with one fixed order for any request, and
 * `grpc.health.v1.Health/Check` with SERVING (what Envoy's health checks call), doing as little
 * as a server can: the answers are encoded once at start, requests are not decoded. gRPC over
 * h2c and Connect (JSON or binary) over HTTP/1.1 or h2c, on one port, through the same
 * dual-protocol server the services use, so that the two differ only in what runs per request.
 * Prints its URL on stdout like bare-server.ts.
 */
import { create, toBinary, toJsonString, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { createDualProtocolServer, type DualRequest, type DualResponse } from "@commerce/runtime/server";
import {
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";
import { ProductSchema, ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { OrderService, PlaceOrderResponseSchema } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import type { OutgoingHttpHeaders } from "node:http";

/** One method's answer in each encoding, ready to write. */
interface FixedAnswer {
  readonly grpc: Buffer;
  readonly proto: Buffer;
  readonly json: Buffer;
}

function encode<T extends DescMessage>(schema: T, message: MessageShape<T>): FixedAnswer {
  const proto = Buffer.from(toBinary(schema, message));
  const grpc = Buffer.alloc(5 + proto.byteLength);
  grpc.writeUInt32BE(proto.byteLength, 1);
  proto.copy(grpc, 5);
  return { grpc, proto, json: Buffer.from(toJsonString(schema, message)) };
}

const product = create(ProductSchema, {
  id: "00000000-0000-4000-8000-000000000001",
  name: "Fixed product",
  description: "The same product for every id",
  price: 499.99,
  stock: 100,
  sku: "FIXED-0001",
  brand: "Bench",
  category: "Electronics",
});
const answers = new Map<string, FixedAnswer>([
  [`/${ProductService.typeName}/${ProductService.method.getProduct.name}`, encode(ProductSchema, product)],
  [
    `/${OrderService.typeName}/${OrderService.method.placeOrder.name}`,
    encode(
      PlaceOrderResponseSchema,
      create(PlaceOrderResponseSchema, { orderId: "ord_fixed", status: "CREATED", totalAmount: 999.98 }),
    ),
  ],
  [
    "/grpc.health.v1.Health/Check",
    encode(
      HealthCheckResponseSchema,
      create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVING }),
    ),
  ],
]);

function answer(req: DualRequest, res: DualResponse): void {
  // The request body is not read, only drained, so that the stream or connection completes.
  req.resume();
  const fixed = answers.get(req.url ?? "");
  const contentType = req.headers["content-type"] ?? "";
  if (contentType.startsWith("application/grpc")) {
    const headers: OutgoingHttpHeaders = { "content-type": "application/grpc+proto" };
    // Only the HTTP/2 response type has trailers; gRPC clients only come over HTTP/2.
    const withTrailers = res as { addTrailers(headers: OutgoingHttpHeaders): void };
    if (fixed === undefined) {
      res.writeHead(200, headers);
      withTrailers.addTrailers({ "grpc-status": "12", "grpc-message": "not served here" });
      res.end();
      return;
    }
    res.writeHead(200, headers);
    withTrailers.addTrailers({ "grpc-status": "0" });
    res.end(fixed.grpc);
    return;
  }
  if (fixed === undefined) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"code":"unimplemented","message":"not served here"}');
    return;
  }
  const binary = contentType.startsWith("application/proto");
  const body = binary ? fixed.proto : fixed.json;
  res.writeHead(200, {
    "content-type": binary ? "application/proto" : "application/json",
    "content-length": body.byteLength,
  });
  res.end(body);
}

const server = createDualProtocolServer(answer);
const port = await server.listen(Number(process.env["PORT"] ?? 0), "127.0.0.1");
process.stdout.write(`fixed-product upstream: http://127.0.0.1:${port}\n`);
process.once("SIGTERM", () => {
  void server.close(1_000).then(() => process.exit(0));
});
