/**
 * The services' own ports, called directly as anything inside a cluster could (a pod, or curl on
 * loopback): identity headers count only with the edge's credential for the service called,
 * internal methods answer only the peers that call that service, each with its own credential,
 * and a refused call changes nothing (ADR 0105). Every credential of the deployment is tried on
 * every service: each opens the one it is for and no other, so what a service receives (or a
 * compromised pod holds) is worth nothing anywhere else. Runs against any deployment: see
 * support/service-ports.ts for the environment it reads.
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { expect } from "chai";
import { codeOf } from "@commerce/runtime/testing";
import { randomUUID } from "node:crypto";
import { AnalyticsService } from "@commerce/runtime/gen/commerce/analytics/v1/analytics_pb.js";
import { ProductLookupService } from "@commerce/runtime/gen/commerce/product/v1/lookup_pb.js";
import { AccountService } from "@commerce/runtime/gen/commerce/auth/v1/account_pb.js";
import { AuthService } from "@commerce/runtime/gen/commerce/auth/v1/auth_pb.js";
import { PayableOrderService } from "@commerce/runtime/gen/commerce/order/v1/payable_pb.js";
import { InventoryService } from "@commerce/runtime/gen/commerce/product/v1/inventory_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { DirectoryService } from "@commerce/runtime/gen/commerce/user/v1/directory_pb.js";
import { UserService } from "@commerce/runtime/gen/commerce/user/v1/user_pb.js";
import { NotificationService } from "@commerce/runtime/gen/commerce/notification/v1/notification_pb.js";
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { PaymentService } from "@commerce/runtime/gen/commerce/payment/v1/payment_pb.js";
import {
  CustomerRecommendationService,
  RecommendationService,
} from "@commerce/runtime/gen/commerce/recommendation/v1/recommendation_pb.js";
import { edgeDestinations } from "@commerce/runtime/identity";
import { Health, HealthCheckResponse_ServingStatus } from "@commerce/runtime/gen/grpc/health/v1/health_pb.js";
import { peerCalls } from "@commerce/runtime/server";
import { asEdge, asPeer, forgedIdentity, serviceClient, type Credentials } from "./support/service-ports.js";

const admin = { userId: 1, email: "ops@trust.test", role: "ADMIN" } as const;

/** Everything a caller without the right credential may try. */
const impostors: [string, Credentials][] = [
  ["no credential", {}],
  ["a wrong edge credential", { edge: "not-the-edge-secret-not-the-edge-secret" }],
  ["a wrong peer credential", { peer: "not-the-peer-secret-not-the-peer-secret" }],
];

describe("Service ports: identity headers count only on requests from the edge", () => {
  it("refuses a forged ADMIN identity (401) with no, a wrong, another service's or a peer's credential", async () => {
    const users = serviceClient("user", UserService);
    const refused = [
      ...impostors,
      ["Auth's peer credential for User", asPeer("auth", "user")] as const,
      ["the edge's credential for Auth", asEdge("auth")] as const,
    ];
    for (const [what, credentials] of refused) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(users.listUsers({}, { headers })), what).to.equal(Code.Unauthenticated);
    }
    const listed = await users.listUsers({}, { headers: forgedIdentity(admin, asEdge("user")) });
    expect(listed.users.length).to.be.greaterThan(0);
  });

  it("answers the analytics figures only to the edge's ADMIN identity", async () => {
    const analytics = serviceClient("analytics", AnalyticsService);
    const refused = [
      ...impostors,
      ["a peer credential", asPeer("payment", "order")] as const,
      ["the edge's credential for Order", asEdge("order")] as const,
    ];
    for (const [what, credentials] of refused) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(analytics.getDashboard({}, { headers })), what).to.equal(Code.Unauthenticated);
    }
    const orders = await analytics.getOrderStats({}, { headers: forgedIdentity(admin, asEdge("analytics")) });
    expect(Object.keys(orders.ordersByStatus).sort()).to.deep.equal(["CANCELLED", "CONFIRMED", "CREATED"]);
  });

  it("refuses an admin write with a forged identity and creates nothing", async () => {
    const products = serviceClient("product", ProductService);
    const name = `Forged ${randomUUID()}`;
    const product = { name, price: 9.99, stock: 5, brand: "Trust", categoryId: "books" };
    for (const [what, credentials] of [
      ...impostors,
      ["the edge's credential for Order", asEdge("order")] as const,
    ]) {
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
    const listed = await users.listUsers({}, { headers: forgedIdentity(admin, asEdge("user")) });
    const userId = listed.users.find((u) => u.email === email)?.id ?? 0;
    expect(userId).to.be.greaterThan(0);

    const refused = [
      ...impostors,
      ["the edge's credential for Auth", asEdge("auth")] as const,
      // What Auth presents to User, replayed to Auth: User cannot call Auth as Auth.
      ["Auth's credential for User", asPeer("auth", "user")] as const,
      ["Product's credential for Order", asPeer("product", "order")] as const,
    ];
    for (const [what, credentials] of refused) {
      const refused = accounts.deleteAccount({ userId }, { headers: forgedIdentity(admin, credentials) });
      expect(await codeOf(refused), what).to.equal(Code.Unauthenticated);
    }
    expect((await auth.login({ email, password })).token)
      .to.be.a("string")
      .and.not.equal("");

    const { deleted } = await accounts.deleteAccount({ userId }, { headers: asPeer("user", "auth").headers });
    expect(deleted).to.equal(true);
    expect(await codeOf(auth.login({ email, password }))).to.be.oneOf([Code.Unauthenticated, Code.NotFound]);

    // The User service finishes the deletion it begins with that call, as an admin's would: the
    // profile goes too, so the deployment's users and its analytics agree afterwards.
    await users.deleteUser({ userId }, { headers: forgedIdentity(admin, asEdge("user")) });
    const after = await users.listUsers({}, { headers: forgedIdentity(admin, asEdge("user")) });
    expect(after.users.map((user) => user.id)).to.not.include(userId);
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
      { headers: forgedIdentity(admin, asEdge("product")) },
    );
    const productId = ids[0] ?? "";
    const orderId = `ord_trust_${randomUUID()}`;
    const reserved = await inventory.reserveStock(
      { orderId, lines: [{ productId, quantity: 2 }] },
      { headers: asPeer("order", "product").headers },
    );
    expect(reserved.reserved).to.equal(true);
    const stock = async (): Promise<number> => (await products.getProduct({ productId })).stock;
    expect(await stock()).to.equal(3);

    const refused = [
      ...impostors,
      ["the edge's credential for Product", asEdge("product")] as const,
      // Order's credential for Product is Order's alone: Product's for Order opens nothing here.
      ["Product's credential for Order", asPeer("product", "order")] as const,
    ];
    for (const [what, credentials] of refused) {
      const refusal = inventory.releaseStock({ orderId }, { headers: forgedIdentity(admin, credentials) });
      expect(await codeOf(refusal), what).to.equal(Code.Unauthenticated);
      expect(await stock(), what).to.equal(3);
    }
    const released = await inventory.releaseStock(
      { orderId },
      { headers: asPeer("order", "product").headers },
    );
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
    for (const [what, credentials] of [
      ...impostors,
      ["the edge's credential for User", asEdge("user")] as const,
      ["the edge's credential for Order", asEdge("order")] as const,
    ]) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(directory.createProfile(profile, { headers })), what).to.equal(
        Code.Unauthenticated,
      );
      expect(await codeOf(payable.getPayableOrder({ orderId: "ord_x" }, { headers })), what).to.equal(
        Code.Unauthenticated,
      );
    }
    for (const caller of ["product", "payment"]) {
      const headers = asPeer(caller, "order").headers;
      expect(await codeOf(payable.getPayableOrder({ orderId: "ord_x" }, { headers })), caller).to.equal(
        Code.NotFound,
      );
    }
  });

  it("ProductLookupService: 401 to anyone but a peer; CustomerRecommendationService, which no peer calls: 401 to all", async () => {
    const lookup = serviceClient("product", ProductLookupService);
    const forCustomers = serviceClient("recommendation", CustomerRecommendationService);
    const { ids } = await serviceClient("product", ProductService).bulkCreateProducts(
      {
        products: [
          { name: `Looked up ${randomUUID()}`, price: 3, stock: 1, brand: "Trust", categoryId: "books" },
        ],
      },
      { headers: forgedIdentity(admin, asEdge("product")) },
    );
    const productIds = [ids[0] ?? ""];
    for (const [what, credentials] of [
      ...impostors,
      ["the edge's credential for Product", asEdge("product")] as const,
      ["the edge's credential for Recommendation", asEdge("recommendation")] as const,
    ]) {
      const headers = forgedIdentity(admin, credentials);
      expect(await codeOf(lookup.getActiveProducts({ productIds }, { headers })), what).to.equal(
        Code.Unauthenticated,
      );
      expect(
        await codeOf(forCustomers.getCustomerRecommendations({ userId: admin.userId }, { headers })),
        what,
      ).to.equal(Code.Unauthenticated);
    }
    // No service calls Recommendation's internal method, so no credential opens it.
    for (const call of peerCalls) {
      const { headers } = asPeer(call.caller, call.callee);
      expect(
        await codeOf(forCustomers.getCustomerRecommendations({ userId: admin.userId }, { headers })),
        `${call.caller} -> ${call.callee}`,
      ).to.equal(Code.Unauthenticated);
    }
    const found = await lookup.getActiveProducts(
      { productIds },
      { headers: asPeer("recommendation", "product").headers },
    );
    expect(found.products.map((p) => p.id)).to.deep.equal(productIds);
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

/** How a call ended: "OK", or the name of its Connect code. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "OK";
  } catch (error) {
    return Code[ConnectError.from(error).code];
  }
}

/**
 * One call per service that reads the caller's identity (an admin's), and how it ends once
 * access lets it through: answered, or refused by validation, which comes after access and
 * changes nothing. Auth has no such method (its methods are public or internal).
 */
const identityProbes: readonly {
  readonly service: string;
  readonly call: (headers: Record<string, string>) => Promise<unknown>;
  readonly admitted: string;
}[] = [
  {
    service: "user",
    call: (headers) => serviceClient("user", UserService).listUsers({}, { headers }),
    admitted: "OK",
  },
  {
    service: "product",
    call: (headers) => serviceClient("product", ProductService).createProduct({}, { headers }),
    admitted: "InvalidArgument",
  },
  {
    service: "order",
    call: (headers) => serviceClient("order", OrderService).listOrders({}, { headers }),
    admitted: "OK",
  },
  {
    service: "notification",
    call: (headers) =>
      serviceClient("notification", NotificationService).listAllNotifications({ size: 0 }, { headers }),
    admitted: "InvalidArgument",
  },
  {
    service: "payment",
    call: (headers) => serviceClient("payment", PaymentService).listMyPayments({}, { headers }),
    admitted: "OK",
  },
  {
    service: "analytics",
    call: (headers) => serviceClient("analytics", AnalyticsService).getOrderStats({}, { headers }),
    admitted: "OK",
  },
  {
    service: "recommendation",
    call: (headers) =>
      serviceClient("recommendation", RecommendationService).getMyRecommendations({ size: 0 }, { headers }),
    admitted: "InvalidArgument",
  },
];

/** One internal method per service that has some, and how it ends once access lets it through. */
const internalProbes: readonly {
  readonly service: string;
  readonly call: (headers: Record<string, string>) => Promise<unknown>;
  readonly admitted: string;
}[] = [
  {
    service: "auth",
    call: (headers) => serviceClient("auth", AccountService).deleteAccount({ userId: 0 }, { headers }),
    admitted: "InvalidArgument",
  },
  {
    service: "user",
    call: (headers) => serviceClient("user", DirectoryService).createProfile({ userId: 0 }, { headers }),
    admitted: "InvalidArgument",
  },
  {
    service: "product",
    call: (headers) =>
      serviceClient("product", ProductLookupService).getActiveProducts({ productIds: [] }, { headers }),
    admitted: "InvalidArgument",
  },
  {
    service: "order",
    call: (headers) =>
      serviceClient("order", PayableOrderService).getPayableOrder({ orderId: "ord_x" }, { headers }),
    admitted: "NotFound",
  },
  {
    service: "recommendation",
    call: (headers) =>
      serviceClient("recommendation", CustomerRecommendationService).getCustomerRecommendations(
        { userId: admin.userId },
        { headers },
      ),
    // No peer calls it: nothing admits a call.
    admitted: "Unauthenticated",
  },
];

describe("Service ports: each hop's credential opens the one service it is for", () => {
  it("refuses the edge's credential for any other service (401, the identity ignored), and takes each service's own", async () => {
    const seen: string[] = [];
    const expected: string[] = [];
    for (const probe of identityProbes) {
      for (const target of edgeDestinations) {
        seen.push(
          `${target}'s at ${probe.service}: ${await outcome(probe.call(forgedIdentity(admin, asEdge(target))))}`,
        );
        expected.push(
          `${target}'s at ${probe.service}: ${target === probe.service ? probe.admitted : "Unauthenticated"}`,
        );
      }
    }
    expect(seen).to.deep.equal(expected);
  });

  it("refuses a peer's credential for one service at every other, answers it only there, and never as the edge", async () => {
    // Every credential of the call graph, and some of pairs that do not call each other.
    const pairs = [
      ...peerCalls.map((call) => [call.caller, call.callee] as const),
      ["notification", "order"],
      ["analytics", "product"],
      ["payment", "auth"],
      ["order", "payment"],
    ] as const;
    const isCall = (caller: string, callee: string): boolean =>
      peerCalls.some((call) => call.caller === caller && call.callee === callee);
    const seen: string[] = [];
    const expected: string[] = [];
    for (const [caller, callee] of pairs) {
      const credentials = asPeer(caller, callee);
      for (const probe of internalProbes) {
        const label = `${caller} -> ${callee} at ${probe.service}`;
        seen.push(`${label}: ${await outcome(probe.call(credentials.headers))}`);
        const admitted = probe.service === callee && isCall(caller, callee);
        expected.push(`${label}: ${admitted ? probe.admitted : "Unauthenticated"}`);
      }
      // A peer's credential carries no identity, not even at the service it opens.
      for (const probe of identityProbes) {
        const label = `${caller} -> ${callee} as the edge at ${probe.service}`;
        seen.push(`${label}: ${await outcome(probe.call(forgedIdentity(admin, credentials)))}`);
        expected.push(`${label}: Unauthenticated`);
      }
    }
    // Nor does the edge's credential for a service open that service's internal methods.
    for (const probe of internalProbes) {
      seen.push(`edge at ${probe.service}: ${await outcome(probe.call(asEdge(probe.service).headers))}`);
      expected.push(`edge at ${probe.service}: Unauthenticated`);
    }
    expect(seen).to.deep.equal(expected);
  });
});
