import { expect } from "chai";
import { Code, createClient } from "@connectrpc/connect";
import { InventoryService } from "../../gen/commerce/product/v1/inventory_pb.js";
import { ProductService } from "../../gen/commerce/product/v1/product_pb.js";
import { callerKey, callingPeerKey, type Caller } from "../identity/caller.js";
import {
  createDestinationTrust,
  edgeCredentialHeader,
  peerCredentialHeader,
  sha256,
} from "../identity/request-trust.js";
import { noRevokedAccounts } from "../identity/revoked-accounts.js";
import { createServiceHost } from "../server/service-host.js";
import { capturedLogger } from "../testing/captured-logger.js";
import { codeOf } from "../testing/service-harness.js";

describe("the access interceptor", () => {
  const seen: { peer: string | undefined; caller: Caller | undefined }[] = [];
  const { logger, lines } = capturedLogger();
  const host = createServiceHost({
    routes: [
      {
        services: [InventoryService, ProductService],
        register(router) {
          router.service(InventoryService, {
            releaseStock: (_req, ctx) => {
              seen.push({ peer: ctx.values.get(callingPeerKey), caller: ctx.values.get(callerKey) });
              return { released: true };
            },
          });
          router.service(ProductService, {
            createProduct: (_req, ctx) => {
              seen.push({ peer: ctx.values.get(callingPeerKey), caller: ctx.values.get(callerKey) });
              return { message: "created" };
            },
          });
        },
      },
    ],
    logger,
    maxBodyBytes: 1 << 20,
    trust: createDestinationTrust([InventoryService, ProductService], {
      edgeCredentialSha256: sha256("edge-to-product"),
      callers: new Map([
        ["order", sha256("order-to-product")],
        ["recommendation", sha256("recommendation-to-product")],
      ]),
    }),
    revoked: noRevokedAccounts,
    isReady: () => true,
  });
  const inventory = createClient(InventoryService, host.transport);
  const products = createClient(ProductService, host.transport);
  const admin = { "x-user-email": "ops@example.test", "x-user-role": "ADMIN", "x-user-id": "1" };

  beforeEach(() => {
    seen.length = 0;
    lines.length = 0;
  });

  it("tells an internal method's handler which peer called, from that peer's credential, and never an identity", async () => {
    for (const [credential, peer] of [
      ["order-to-product", "order"],
      ["recommendation-to-product", "recommendation"],
    ] as const) {
      const headers = { ...admin, [peerCredentialHeader]: credential };
      expect((await inventory.releaseStock({ orderId: "ord_1" }, { headers })).released).to.equal(true);
      expect(seen.pop()).to.deep.equal({ peer, caller: undefined });
    }
  });

  it("refuses an internal call without a caller's credential, logs it as a warning, and runs nothing", async () => {
    for (const headers of [
      {},
      { [peerCredentialHeader]: "edge-to-product" },
      { [edgeCredentialHeader]: "edge-to-product" },
    ]) {
      expect(await codeOf(inventory.releaseStock({ orderId: "ord_1" }, { headers }))).to.equal(
        Code.Unauthenticated,
      );
    }
    expect(seen).to.deep.equal([]);
    expect(lines.map((line) => [line["level"], line["rpc"], line["msg"]])).to.deep.equal(
      Array.from({ length: 3 }, () => [
        40,
        "commerce.product.v1.InventoryService/ReleaseStock",
        "internal method refused: no credential of a caller of this service",
      ]),
    );
  });

  it("gives a method for users the edge's identity, and no calling peer", async () => {
    const headers = { ...admin, [edgeCredentialHeader]: "edge-to-product" };
    const product = { name: "Lamp", price: 1, stock: 1, brand: "B", categoryId: "books" };
    await products.createProduct({ product }, { headers });
    expect(seen).to.deep.equal([
      { peer: undefined, caller: { userId: 1, email: "ops@example.test", role: "ADMIN" } },
    ]);
    const asPeer = { ...admin, [peerCredentialHeader]: "order-to-product" };
    expect(await codeOf(products.createProduct({ product }, { headers: asPeer }))).to.equal(
      Code.Unauthenticated,
    );
  });
});
