import { expect } from "chai";
import { Access, internalServices, publicServices } from "@commerce/runtime/contract";
import { createRouteTable, type RouteMatch } from "./route-table.js";

const table = createRouteTable([...publicServices, ...internalServices]);

function routeOf(match: RouteMatch): string {
  if (match.kind !== "found") return match.kind;
  return `${match.route.service.name}.${match.route.method.name} ${JSON.stringify(Object.fromEntries(match.params))}`;
}

/** The contract's REST surface, endpoint by endpoint: method, path, access, success status. */
const spec: [string, string, Access, number][] = [
  ["POST", "/api/auth/register", Access.PUBLIC, 201],
  ["POST", "/api/auth/login", Access.PUBLIC, 200],
  ["GET", "/api/users/me", Access.AUTHENTICATED, 200],
  ["PUT", "/api/users/me", Access.AUTHENTICATED, 200],
  ["POST", "/api/users/addresses", Access.AUTHENTICATED, 201],
  ["GET", "/api/users/addresses", Access.AUTHENTICATED, 200],
  ["PUT", "/api/users/addresses/{address_id}", Access.AUTHENTICATED, 200],
  ["DELETE", "/api/users/addresses/{address_id}", Access.AUTHENTICATED, 204],
  ["GET", "/api/users", Access.ADMIN, 200],
  ["DELETE", "/api/users/{user_id}", Access.ADMIN, 204],
  ["GET", "/api/products", Access.PUBLIC, 200],
  ["GET", "/api/products/{product_id}", Access.PUBLIC, 200],
  ["GET", "/api/categories", Access.PUBLIC, 200],
  ["POST", "/api/products", Access.ADMIN, 201],
  ["PUT", "/api/products/{product_id}", Access.ADMIN, 200],
  ["DELETE", "/api/products/{product_id}", Access.ADMIN, 204],
  ["POST", "/api/products/bulk", Access.ADMIN, 201],
  ["POST", "/api/orders", Access.AUTHENTICATED, 201],
  ["GET", "/api/orders/{order_id}", Access.AUTHENTICATED, 200],
  ["GET", "/api/orders/my", Access.AUTHENTICATED, 200],
  ["GET", "/api/orders", Access.ADMIN, 200],
  ["PUT", "/api/orders/{order_id}/status", Access.ADMIN, 200],
  ["POST", "/api/payments/create", Access.AUTHENTICATED, 200],
  ["GET", "/api/payments/my", Access.AUTHENTICATED, 200],
  ["POST", "/api/payments/callback", Access.PUBLIC, 200],
  // Not the contract's: the embedded sandbox gateway's checkout (ADR 0050).
  ["POST", "/api/payments/sandbox/checkout", Access.AUTHENTICATED, 200],
  ["GET", "/api/notifications", Access.AUTHENTICATED, 200],
  ["PUT", "/api/notifications/{notification_id}/read", Access.AUTHENTICATED, 200],
  ["GET", "/api/notifications/all", Access.ADMIN, 200],
  ["GET", "/api/analytics/dashboard", Access.ADMIN, 200],
  ["GET", "/api/analytics/revenue", Access.ADMIN, 200],
  ["GET", "/api/analytics/orders", Access.ADMIN, 200],
  ["GET", "/api/products/{product_id}/recommendations", Access.PUBLIC, 200],
  ["GET", "/api/recommendations/me", Access.AUTHENTICATED, 200],
];

describe("createRouteTable", () => {
  it("derives exactly the contract's REST surface (and the sandbox checkout) from the descriptors, each endpoint once", () => {
    const derived = table.routes.map((r) => [
      r.verb,
      r.template,
      r.contract.access,
      r.contract.successStatus,
    ]);
    expect(derived).to.have.deep.members(spec);
    expect(derived).to.have.length(spec.length);
  });

  it("routes no internal service", () => {
    const internal = new Set(internalServices);
    expect(table.routes.filter((r) => internal.has(r.service))).to.deep.equal([]);
  });

  it("unwraps exactly the endpoints whose JSON is a bare array", () => {
    const unwrapped = table.routes
      .filter((r) => r.contract.unwrap !== undefined)
      .map((r) => `${r.verb} ${r.template}`);
    expect(unwrapped).to.have.members([
      "GET /api/users/addresses",
      "GET /api/users",
      "GET /api/categories",
      "GET /api/orders/my",
      "GET /api/orders",
      "GET /api/payments/my",
      "GET /api/notifications",
      "GET /api/notifications/all",
      "GET /api/products/{product_id}/recommendations",
      "GET /api/recommendations/me",
    ]);
  });

  it("prefers a literal segment over a variable", () => {
    expect(routeOf(table.match("GET", "/api/orders/my"))).to.equal("OrderService.ListMyOrders {}");
    expect(routeOf(table.match("GET", "/api/orders/o-17"))).to.equal(
      'OrderService.GetOrder {"order_id":"o-17"}',
    );
    expect(routeOf(table.match("GET", "/api/notifications/all"))).to.equal(
      "NotificationService.ListAllNotifications {}",
    );
    expect(routeOf(table.match("POST", "/api/products/bulk"))).to.equal(
      "ProductService.BulkCreateProducts {}",
    );
  });

  it("binds and percent-decodes path variables", () => {
    expect(routeOf(table.match("PUT", "/api/orders/a%20b/status"))).to.equal(
      'OrderService.UpdateOrderStatus {"order_id":"a b"}',
    );
    expect(routeOf(table.match("DELETE", "/api/users/addresses/42"))).to.equal(
      'UserService.DeleteAddress {"address_id":"42"}',
    );
  });

  it("tells an unknown path from a known path with another method", () => {
    expect(table.match("GET", "/api/nope")).to.deep.equal({ kind: "not_found" });
    expect(table.match("GET", "/api/orders/x/status/extra")).to.deep.equal({ kind: "not_found" });
    expect(table.match("GET", "/api/users/addresses/%zz")).to.deep.equal({ kind: "not_found" });
    expect(table.match("PATCH", "/api/users/me")).to.deep.equal({
      kind: "method_not_allowed",
      allow: ["GET", "PUT"],
    });
  });
});
