/**
 * The services' own ports, called directly as anything inside a cluster could (a pod, or curl on
 * loopback): identity headers count only with the edge credential, internal methods answer only
 * peers, and a refused call changes nothing (ADR 0011).
 * The same calls with the right credential work. Runs against any deployment: see
 * support/service-ports.ts for the environment it reads.
 */
import { Code, type Client } from "@connectrpc/connect";
import { expect } from "chai";
import { codeOf } from "@commerce/runtime/testing";
import { randomUUID } from "node:crypto";
import { AnalyticsService } from "@commerce/runtime/gen/commerce/analytics/v1/analytics_pb.js";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import { CustomerRecommendationService } from "@commerce/runtime/gen/commerce/recommendation/v1/recommendation_pb.js";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";
import { asEdge, asPeer, forgedIdentity, serviceClient, type Credentials } from "./support/service-ports.js";

const admin = { userId: 1, email: "ops@trust.test", role: "ADMIN" } as const;

/** Everything a caller without the right credential may try. */
const impostors: [string, Credentials][] = [
  ["no credential", {}],
  ["a wrong edge credential", { edge: "not-the-edge-secret-not-the-edge-secret" }],
  ["a wrong peer credential", { peer: "not-the-peer-secret-not-the-peer-secret" }],
];

describe("Service ports: identity headers count only on requests from the edge", () => {
  it("refuses a forged ADMIN identity (401) with no, a wrong, or only the peer credential", async () => {
    const users = serviceClient("user", UserService);
    for (const [what, credentials] of [...impostors, ["the peer credential", asPeer()] as const]) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(users.listUsers({}, { headers })), what).to.equal(Code.Unauthenticated);
    }
    const listed = await users.listUsers({}, { headers: forgedIdentity(admin, asEdge()) });
    expect(listed.users.length).to.be.greaterThan(0);
  });

  it("answers the analytics figures only to the edge's ADMIN identity", async () => {
    const analytics = serviceClient("analytics", AnalyticsService);
    for (const [what, credentials] of [...impostors, ["the peer credential", asPeer()] as const]) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(analytics.getDashboard({}, { headers })), what).to.equal(Code.Unauthenticated);
    }
    const orders = await analytics.getOrderStats({}, { headers: forgedIdentity(admin, asEdge()) });
    expect(Object.keys(orders.ordersByStatus).sort()).to.deep.equal(["CANCELLED", "CONFIRMED", "CREATED"]);
  });

  it("refuses an admin write with a forged identity and creates nothing", async () => {
    const products = serviceClient("product", ProductService);
    const name = `Forged ${randomUUID()}`;
    const product = { name, price: 9.99, stock: 5, brand: "Trust", categoryId: "books" };
    for (const [what, credentials] of impostors) {
      const refused = products.createProduct({ product }, { headers: forgedIdentity(admin, credentials) });
      expect(await codeOf(refused), what).to.equal(Code.Unauthenticated);
    }
    const page = await products.listProducts({ brand: "Trust", size: 100 });
    expect(page.content.filter((p) => p.name === name)).to.deep.equal([]);
  });
});

describe("Service ports: internal methods answer only peer services", () => {
  it("AccountService/DeleteAccount: 401 to anyone but a peer, and the account keeps working", async () => {
    const auth = serviceClient("auth", AuthService);
    const accounts = serviceClient("auth", AccountService);
    const users = serviceClient("user", UserService);
    const email = `target.${randomUUID()}@trust.test`;
    const password = "target-password";
    await auth.register({ fullName: "Target", email, phoneNo: "+919812345678", password });
    const listed = await users.listUsers({}, { headers: forgedIdentity(admin, asEdge()) });
    const userId = listed.users.find((u) => u.email === email)?.id ?? 0;
    expect(userId).to.be.greaterThan(0);

    for (const [what, credentials] of [...impostors, ["the edge credential", asEdge()] as const]) {
      const refused = accounts.deleteAccount({ userId }, { headers: forgedIdentity(admin, credentials) });
      expect(await codeOf(refused), what).to.equal(Code.Unauthenticated);
    }
    expect((await auth.login({ email, password })).token)
      .to.be.a("string")
      .and.not.equal("");

    const { deleted } = await accounts.deleteAccount({ userId }, { headers: asPeer().headers });
    expect(deleted).to.equal(true);
    expect(await codeOf(auth.login({ email, password }))).to.be.oneOf([Code.Unauthenticated, Code.NotFound]);
  });

  it("InventoryService/ReleaseStock: 401 to anyone but a peer, and the reserved stock stays taken", async () => {
    const products = serviceClient("product", ProductService);
    const inventory = serviceClient("product", InventoryService);
    const product = {
      name: `Reserved ${randomUUID()}`,
      price: 4.5,
      stock: 5,
      brand: "Trust",
      categoryId: "books",
    };
    const { ids } = await products.bulkCreateProducts(
      { products: [product] },
      { headers: forgedIdentity(admin, asEdge()) },
    );
    const productId = ids[0] ?? "";
    const orderId = `ord_trust_${randomUUID()}`;
    const reserved = await inventory.reserveStock(
      { orderId, lines: [{ productId, quantity: 2 }] },
      { headers: asPeer().headers },
    );
    expect(reserved.reserved).to.equal(true);
    const stock = async (): Promise<number> => (await products.getProduct({ productId })).stock;
    expect(await stock()).to.equal(3);

    for (const [what, credentials] of [...impostors, ["the edge credential", asEdge()] as const]) {
      const refused = inventory.releaseStock({ orderId }, { headers: forgedIdentity(admin, credentials) });
      expect(await codeOf(refused), what).to.equal(Code.Unauthenticated);
      expect(await stock(), what).to.equal(3);
    }
    const released = await inventory.releaseStock({ orderId }, { headers: asPeer().headers });
    expect(released.released).to.equal(true);
    expect(await stock()).to.equal(5);
  });

  it("DirectoryService, PayableOrderService: 401 to anyone but a peer", async () => {
    const directory = serviceClient("user", DirectoryService);
    const payable = serviceClient("order", PayableOrderService);
    const profile = {
      userId: 2_000_000_000,
      email: `ghost.${randomUUID()}@trust.test`,
      fullName: "Ghost",
      phoneNo: "",
      role: "ADMIN",
      createdAt: "2026-01-01T00:00:00",
    };
    for (const [what, credentials] of [...impostors, ["the edge credential", asEdge()] as const]) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(directory.createProfile(profile, { headers })), what).to.equal(
        Code.Unauthenticated,
      );
      expect(await codeOf(payable.getPayableOrder({ orderId: "ord_x" }, { headers })), what).to.equal(
        Code.Unauthenticated,
      );
    }
    expect(
      await codeOf(payable.getPayableOrder({ orderId: "ord_x" }, { headers: asPeer().headers })),
    ).to.equal(Code.NotFound);
  });

  it("ProductLookupService, CustomerRecommendationService: 401 to anyone but a peer", async () => {
    const lookup = serviceClient("product", ProductLookupService);
    const forCustomers = serviceClient("recommendation", CustomerRecommendationService);
    const { ids } = await serviceClient("product", ProductService).bulkCreateProducts(
      {
        products: [
          { name: `Looked up ${randomUUID()}`, price: 3, stock: 1, brand: "Trust", categoryId: "books" },
        ],
      },
      { headers: forgedIdentity(admin, asEdge()) },
    );
    const productIds = [ids[0] ?? ""];
    for (const [what, credentials] of [...impostors, ["the edge credential", asEdge()] as const]) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(lookup.getActiveProducts({ productIds }, { headers })), what).to.equal(
        Code.Unauthenticated,
      );
      expect(
        await codeOf(forCustomers.getCustomerRecommendations({ email: admin.email }, { headers })),
        what,
      ).to.equal(Code.Unauthenticated);
    }
    const found = await lookup.getActiveProducts({ productIds }, { headers: asPeer().headers });
    expect(found.products.map((p) => p.id)).to.deep.equal(productIds);
    const recommended = await forCustomers.getCustomerRecommendations(
      { email: admin.email, size: 2 },
      { headers: asPeer().headers },
    );
    expect(recommended.products.length).to.be.at.most(2);
  });

  it("answers gRPC health checks to anyone, so that probes need no credential", async () => {
    for (const service of ["auth", "user", "product", "order", "notification", "recommendation"] as const) {
      const health: Client<typeof Health> = serviceClient(service, Health);
      expect((await health.check({ service: "" })).status, service).to.equal(
        HealthCheckResponse_ServingStatus.SERVING,
      );
    }
  });
});
