/**
 * Hostile input gets a clear 4xx with the one JSON error body, and changes nothing, on both
 * edges (docs/decisions.md "JSON nesting depth", "Query values").
 */
import { expect } from "chai";
import { adminLogin, registeredUser, type TestUser } from "./support/accounts.js";
import { api, type ApiResponse } from "./support/api.js";
import { createdProduct } from "./support/catalog.js";
import { contractRoutes, pathOf, type ContractRoute } from "./support/contract-routes.js";
import { forbidden } from "./support/forbidden-text.js";
import { webhookSignature } from "./support/payments.js";

const tooDeep = {
  status: 400,
  code: "INVALID_ARGUMENT",
  message: "request body nests deeper than 100 levels",
};
const tooLarge = { status: 413, code: "PAYLOAD_TOO_LARGE", message: "request body exceeds 1048576 bytes" };

/** `depth` objects or arrays, each the only member of the one around it. */
const nestings = {
  objects: (depth: number): string => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1),
  arrays: (depth: number): string => "[".repeat(depth) + "]".repeat(depth),
} as const;

function expectErrorBody(response: ApiResponse, expected: object, what: string): void {
  expect(response.status, `${what}: ${response.text.slice(0, 300)}`).to.equal(
    (expected as { status: number }).status,
  );
  expect(response.headers.get("content-type"), what).to.match(/^application\/json/);
  expect(response.body, what).to.deep.equal(expected);
}

interface Fixture {
  readonly admin: string;
  readonly customer: TestUser;
  readonly productId: string;
  readonly pathValues: Readonly<Record<string, string>>;
}

async function ok<T>(response: Promise<ApiResponse>): Promise<T> {
  const answer = await response;
  expect(answer.status, answer.text).to.equal(200);
  return answer.body as T;
}

/** What any of the refused writes could have changed: the catalog, accounts, orders, payments. */
async function stateOf(fixture: Fixture): Promise<unknown> {
  const { admin, customer } = fixture;
  const token = customer.token;
  return {
    product: await ok(api("GET", `/api/products/${fixture.productId}`)),
    catalog: (await ok<{ totalElements: number }>(api("GET", "/api/products?size=1"))).totalElements,
    users: (await ok<unknown[]>(api("GET", "/api/users", { token: admin }))).length,
    orders: (await ok<unknown[]>(api("GET", "/api/orders", { token: admin }))).length,
    me: await ok(api("GET", "/api/users/me", { token })),
    addresses: await ok(api("GET", "/api/users/addresses", { token })),
    myOrders: await ok(api("GET", "/api/orders/my", { token })),
    myPayments: await ok(api("GET", "/api/payments/my", { token })),
  };
}

/** A deployment with one of everything a body route can name in its path. */
async function fixture(): Promise<Fixture> {
  const admin = await adminLogin();
  const customer = await registeredUser("deep-json");
  const productId = await createdProduct({ stock: 10 });
  const address = { street: "12 MG Road", city: "Bengaluru", state: "Karnataka", pincode: "560001" };
  const added = await api("POST", "/api/users/addresses", { token: customer.token, body: address });
  expect(added.status, added.text).to.equal(201);
  const [mine] = await ok<{ id: number }[]>(api("GET", "/api/users/addresses", { token: customer.token }));
  const placed = await api("POST", "/api/orders", {
    token: customer.token,
    body: { items: [{ productId, quantity: 1 }] },
  });
  expect(placed.status, placed.text).to.equal(201);
  return {
    admin,
    customer,
    productId,
    pathValues: {
      product_id: productId,
      address_id: String(mine?.id),
      order_id: (placed.body as { orderId: string }).orderId,
    },
  };
}

function send(fixture: Fixture, route: ContractRoute, body: string): Promise<ApiResponse> {
  const token =
    route.access === "admin"
      ? fixture.admin
      : route.access === "authenticated"
        ? fixture.customer.token
        : undefined;
  return api(route.verb, pathOf(route, fixture.pathValues), {
    ...(token === undefined ? {} : { token }),
    rawBody: body,
    headers: {
      "content-type": "application/json",
      ...(route.body === "raw" ? { "x-payment-signature": webhookSignature(body) } : {}),
    },
  });
}

describe("Hostile input: deeply nested JSON bodies", function () {
  this.timeout(120_000);
  const routes = contractRoutes();
  const jsonRoutes = routes.filter((r) => r.body === "json");
  const rawRoutes = routes.filter((r) => r.body === "raw");
  let world: Fixture;
  let initial: unknown;

  before(async () => {
    world = await fixture();
    initial = await stateOf(world);
  });

  it("finds the contract's body routes", () => {
    const names = jsonRoutes.map((r) => `${r.verb} ${r.template}`);
    expect(names).to.include.members([
      "POST /api/orders",
      "POST /api/payments/create",
      "POST /api/products",
      "PUT /api/products/{product_id}",
      "POST /api/products/bulk",
    ]);
    expect(jsonRoutes).to.have.length.greaterThan(10);
    expect(rawRoutes.map((r) => `${r.verb} ${r.template}`)).to.deep.equal(["POST /api/payments/callback"]);
  });

  for (const [shape, nest] of Object.entries(nestings)) {
    it(`refuses ${shape} nested 10,000 deep on every JSON body route with 400`, async () => {
      for (const route of jsonRoutes) {
        expectErrorBody(await send(world, route, nest(10_000)), tooDeep, `${route.verb} ${route.template}`);
      }
    });

    it(`refuses ${shape} nested 1,000,000 deep on every body route with 413 (over 1 MiB)`, async () => {
      for (const route of [...jsonRoutes, ...rawRoutes]) {
        expectErrorBody(
          await send(world, route, nest(1_000_000)),
          tooLarge,
          `${route.verb} ${route.template}`,
        );
      }
    });

    it(`refuses ${shape} nested 101 deep, and lets 100 through to the other checks`, async () => {
      for (const route of jsonRoutes) {
        const what = `${route.verb} ${route.template}`;
        expectErrorBody(await send(world, route, nest(101)), tooDeep, `${what} at 101`);
        const at100 = await send(world, route, nest(100));
        expect(at100.status, `${what} at 100: ${at100.text}`).to.be.within(400, 499);
        expect(at100.body, `${what} at 100`).to.have.keys("status", "code", "message");
        expect((at100.body as { message: string }).message, `${what} at 100`).to.not.equal(tooDeep.message);
      }
    });

    it(`answers a signed payment callback of ${shape} nested 10,000 deep with 400 (its body is not the edges' to read)`, async () => {
      for (const route of rawRoutes) {
        const response = await send(world, route, nest(10_000));
        expect(response.status, response.text).to.equal(400);
        expect(response.body).to.include({ status: 400, code: "INVALID_ARGUMENT" });
      }
    });
  }

  it("changed nothing: no product, account, address, order or payment was created or altered", async () => {
    expect(await stateOf(world)).to.deep.equal(initial);
  });
});

const invalid = (message: string): object => ({ status: 400, code: "INVALID_ARGUMENT", message });
const singleLine =
  "must be one line of text without control, bidirectional or invisible formatting characters";

describe("Hostile input: empty and control-character query values", () => {
  it("refuses a query parameter without a value, whatever its type", async () => {
    const admin = await adminLogin();
    const user = await registeredUser("empty-query");
    const cases: [string, string | undefined, object][] = [
      ["/api/analytics/revenue?to=", admin, invalid('parameter "to" must not be empty')],
      ["/api/analytics/revenue?from=", admin, invalid('parameter "from" must not be empty')],
      ["/api/analytics/revenue?from=2026-01-01&to=", admin, invalid('parameter "to" must not be empty')],
      ["/api/notifications?unread=", user.token, invalid('parameter "unread" must be true or false')],
      ["/api/notifications?unread", user.token, invalid('parameter "unread" must be true or false')],
      ["/api/products?category=", undefined, invalid('parameter "category" must not be empty')],
      ["/api/products?brand=", undefined, invalid('parameter "brand" must not be empty')],
      [
        "/api/products?page=",
        undefined,
        invalid('parameter "page" must be a non-negative integer in plain decimal digits'),
      ],
      [
        "/api/notifications/all?size=",
        admin,
        invalid('parameter "size" must be a non-negative integer in plain decimal digits'),
      ],
    ];
    for (const [path, token, expected] of cases) {
      expectErrorBody(await api("GET", path, token === undefined ? {} : { token }), expected, path);
    }
  });

  it("refuses control and invisible formatting characters in the list filters, as in the texts they match", async () => {
    for (const [what, character] of forbidden) {
      for (const name of ["category", "brand"]) {
        const path = `/api/products?${name}=${encodeURIComponent(`x${character}`)}`;
        expectErrorBody(await api("GET", path), invalid(`${name}: ${singleLine}`), `${name} with ${what}`);
      }
    }
    expectErrorBody(
      await api("GET", "/api/products?category=%00"),
      invalid(`category: ${singleLine}`),
      "%00",
    );
    expectErrorBody(await api("GET", "/api/products?brand=%01x"), invalid(`brand: ${singleLine}`), "%01x");
  });

  it("refuses control characters in the revenue dates", async () => {
    const admin = await adminLogin();
    for (const query of ["from=%00", "to=2026-01-01%0A", "from=%E2%80%AE2026-01-01"]) {
      const response = await api("GET", `/api/analytics/revenue?${query}`, { token: admin });
      expect(response.status, `${query}: ${response.text}`).to.equal(400);
      expect(response.body, query).to.include({ status: 400, code: "INVALID_ARGUMENT" });
    }
  });

  it("still answers the same filters with values, and booleans written true, 1, false or 0", async () => {
    const admin = await adminLogin();
    const user = await registeredUser("full-query");
    for (const [path, token] of [
      ["/api/products?category=electronics&brand=Acme", undefined],
      ["/api/analytics/revenue?from=2026-01-01&to=2026-01-31", admin],
      ...["true", "1", "false", "0"].map((value) => [`/api/notifications?unread=${value}`, user.token]),
    ] as [string, string | undefined][]) {
      const response = await api("GET", path, token === undefined ? {} : { token });
      expect(response.status, `${path}: ${response.text}`).to.equal(200);
    }
  });
});
