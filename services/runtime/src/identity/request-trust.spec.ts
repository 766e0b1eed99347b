import { expect } from "chai";
import {
  edgeCredentialHeader,
  peerCredentialHeader,
  createRequestTrust,
  sha256,
  trustNobody,
} from "./request-trust.js";

const order = "commerce.order.v1.OrderService";
const payable = "commerce.order.v1.PayableOrderService";
const product = "commerce.product.v1.InventoryService";

/** Two destinations, as one embedded host serves them: order (two callers) and product (one). */
const orderAnchors = {
  edgeCredentialSha256: sha256("edge-to-order"),
  callers: new Map([
    ["product", sha256("product-to-order")],
    ["payment", sha256("payment-to-order")],
  ]),
};
const productAnchors = {
  edgeCredentialSha256: sha256("edge-to-product"),
  callers: new Map([["order", sha256("order-to-product")]]),
};
const trust = createRequestTrust(
  new Map([
    [order, orderAnchors],
    [payable, orderAnchors],
    [product, productAnchors],
  ]),
);

const edge = (value: string) => new Headers({ [edgeCredentialHeader]: value });
const peer = (value: string) => new Headers({ [peerCredentialHeader]: value });

describe("createRequestTrust", () => {
  it("believes the edge only with its credential for the service called", () => {
    expect(trust.fromEdge(order, edge("edge-to-order"))).to.equal(true);
    expect(trust.fromEdge(payable, edge("edge-to-order"))).to.equal(true);
    expect(trust.fromEdge(product, edge("edge-to-order")), "order's credential at product").to.equal(false);
    expect(trust.fromEdge(order, edge("edge-to-product")), "product's credential at order").to.equal(false);
    expect(trust.fromEdge(order, new Headers())).to.equal(false);
    expect(trust.fromEdge(order, edge(""))).to.equal(false);
    // A peer's credential is not the edge's, in either header.
    expect(trust.fromEdge(order, edge("product-to-order"))).to.equal(false);
    expect(trust.fromEdge(order, peer("edge-to-order"))).to.equal(false);
    expect(trust.fromEdge("commerce.unknown.v1.Nothing", edge("edge-to-order"))).to.equal(false);
  });

  it("names the caller whose credential for this service the request carries, and nobody else", () => {
    expect(trust.peerOf(payable, peer("product-to-order"))).to.equal("product");
    expect(trust.peerOf(payable, peer("payment-to-order"))).to.equal("payment");
    expect(trust.peerOf(product, peer("order-to-product"))).to.equal("order");
    // What order received from product opens nothing at product, and order cannot call as product.
    expect(trust.peerOf(product, peer("product-to-order"))).to.equal(undefined);
    expect(trust.peerOf(payable, peer("order-to-product"))).to.equal(undefined);
    expect(trust.peerOf(payable, edge("product-to-order")), "in the edge's header").to.equal(undefined);
    expect(trust.peerOf(payable, peer("edge-to-order")), "the edge's credential").to.equal(undefined);
    expect(trust.peerOf(payable, new Headers())).to.equal(undefined);
  });

  it("answers the same once a value is proven, and still refuses what it never proved", () => {
    for (let i = 0; i < 20; i++) {
      expect(trust.peerOf(payable, peer("payment-to-order"))).to.equal("payment");
      expect(trust.peerOf(payable, peer(`guess-${i}`))).to.equal(undefined);
      expect(trust.peerOf(product, peer("payment-to-order"))).to.equal(undefined);
      expect(trust.fromEdge(product, edge("edge-to-order"))).to.equal(false);
    }
  });

  it("believes nobody for a service without an edge credential or callers", () => {
    const processor = createRequestTrust(
      new Map([[order, { edgeCredentialSha256: undefined, callers: new Map() }]]),
    );
    expect(processor.fromEdge(order, edge("edge-to-order"))).to.equal(false);
    expect(processor.peerOf(order, peer("product-to-order"))).to.equal(undefined);
    expect(trustNobody.fromEdge(order, edge("edge-to-order"))).to.equal(false);
    expect(trustNobody.peerOf(order, peer("product-to-order"))).to.equal(undefined);
  });
});
