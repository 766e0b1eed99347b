/**
 * Hostile input gets a clear 4xx with the one JSON error body, and changes nothing, on both
 * edges (ADR 0007, ADR 0006).
 */
import { expect } from "chai";
import { rawExchange, type RawAnswer } from "@commerce/runtime/testing";
import { adminLogin, registeredUser, type TestUser } from "./support/accounts.js";
import { api, type ApiResponse } from "./support/api.js";
import { createdProduct } from "./support/catalog.js";
import { contractRoutes, pathOf, type ContractRoute } from "./support/contract-routes.js";
import { forbidden } from "./support/forbidden-text.js";
import { acceptanceEnvironment } from "./support/environment.js";
import { webhookSignature } from "./support/payments.js";

/** The one JSON error body of both edges. */
interface ErrorBody {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

const tooDeep: ErrorBody = {
  status: 400,
  code: "INVALID_ARGUMENT",
  message: "request body nests deeper than 100 levels",
};
const tooLarge: ErrorBody = {
  status: 413,
  code: "PAYLOAD_TOO_LARGE",
  message: "request body exceeds 1048576 bytes",
};

/** `depth` objects or arrays, each the only member of the one around it. */
const nestings = {
  objects: (depth: number): string => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1),
  arrays: (depth: number): string => "[".repeat(depth) + "]".repeat(depth),
} as const;

function expectErrorBody(response: ApiResponse, expected: ErrorBody, what: string): void {
  expect(response.status, `${what}: ${response.text.slice(0, 300)}`).to.equal(expected.status);
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

const invalid = (message: string): ErrorBody => ({ status: 400, code: "INVALID_ARGUMENT", message });
const singleLine =
  "must be one line of text without control, bidirectional or invisible formatting characters";

describe("Hostile input: empty and control-character query values", () => {
  it("refuses a query parameter without a value, whatever its type", async () => {
    const admin = await adminLogin();
    const user = await registeredUser("empty-query");
    const cases: [string, string | undefined, ErrorBody][] = [
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

const malformed = invalid("malformed HTTP request");
const headTooLarge: ErrorBody = {
  status: 431,
  code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
  message: "request line and headers exceed 16384 bytes, or 100 header fields",
};

/** An answer written by the server itself: the status, and the error body as JSON with its length. */
function expectRawError(answer: RawAnswer, expected: ErrorBody, what: string): void {
  expect(answer.status, `${what}: ${answer.raw.slice(0, 300)}`).to.equal(expected.status);
  expect(answer.headers.get("content-type"), what).to.equal("application/json");
  expect(answer.headers.get("content-length"), what).to.equal(String(Buffer.byteLength(answer.body)));
  expect(JSON.parse(answer.body), what).to.deep.equal(expected);
}

/** A request as written, over a bare socket to the edge (no client would send most of these). */
const raw = (request: string): Promise<RawAnswer> => rawExchange(acceptanceEnvironment().baseUrl, request);

/** A GET of the public category list with extra header lines, closing the connection after. */
const get = (headers = "", path = "/api/categories"): string =>
  `GET ${path} HTTP/1.1\r\nhost: acceptance\r\n${headers}connection: close\r\n\r\n`;

describe("Hostile input: what the HTTP servers refuse before the edge's code runs", () => {
  it("answers a 20 KB URL with 431 and the JSON error body (a long URL is never a 414)", async () => {
    expectRawError(
      await raw(get("", `/api/products?brand=${"a".repeat(20_000)}`)),
      headTooLarge,
      "20 KB URL",
    );
  });

  it("answers a 100 KB header with 431 and the JSON error body", async () => {
    expectRawError(await raw(get(`x-big: ${"a".repeat(100_000)}\r\n`)), headTooLarge, "100 KB header");
  });

  it("answers 150 header fields with 431 and the JSON error body", async () => {
    const fields = Array.from({ length: 150 }, (_, i) => `x-field-${i}: v\r\n`).join("");
    expectRawError(await raw(get(fields)), headTooLarge, "150 header fields");
  });

  it("answers a malformed request line or header with 400 and the JSON error body", async () => {
    const requests: [string, string][] = [
      ["no request line", "GARBAGE\r\n\r\n"],
      ["a method of 100 letters", get().replace("GET", "A".repeat(100))],
      ["a path without its slash", get().replace("/api/categories", "api/categories")],
      ["a header without a colon", get("no colon here\r\n")],
      ["a NUL in a header value", get("x-a: a\u0000b\r\n")],
      ["a space before a header's colon", get("x-a : b\r\n")],
      ["a content length that is no number", get("content-length: abc\r\n")],
      ["two content lengths", get("content-length: 1\r\ncontent-length: 2\r\n")],
      ["both content length and chunked", get("content-length: 3\r\ntransfer-encoding: chunked\r\n")],
      ["no Host", "GET /api/categories HTTP/1.1\r\nconnection: close\r\n\r\n"],
    ];
    for (const [what, request] of requests) expectRawError(await raw(request), malformed, what);
  });

  it("answers a broken chunk in an order's body with 400 and the JSON error body, and places no order", async () => {
    const buyer = await registeredUser("broken-chunk");
    const productId = await createdProduct({ stock: 5 });
    const body = JSON.stringify({ items: [{ productId, quantity: 1 }] });
    const request =
      "POST /api/orders HTTP/1.1\r\nhost: acceptance\r\ncontent-type: application/json\r\n" +
      `authorization: Bearer ${buyer.token}\r\ntransfer-encoding: chunked\r\n\r\n` +
      `${body.length.toString(16)}\r\n${body}\r\nnot-a-chunk-size\r\n\r\n`;
    expectRawError(await raw(request), malformed, "broken chunk");
    expect(await ok<unknown[]>(api("GET", "/api/orders/my", { token: buyer.token }))).to.deep.equal([]);
    expect(await ok(api("GET", `/api/products/${productId}`))).to.include({ stock: 5 });
  });

  it("answers a body over 1 MiB with 413 and the JSON error body", async () => {
    const body = JSON.stringify({ email: "x".repeat(1024 * 1024), password: "p" });
    const request =
      "POST /api/auth/login HTTP/1.1\r\nhost: acceptance\r\ncontent-type: application/json\r\n" +
      `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`;
    expectRawError(await raw(request), tooLarge, "1 MiB body");
  });

  it("answers an expectation other than 100-continue with 417 and the JSON error body", async () => {
    expectRawError(
      await raw(get("expect: the-moon\r\n")),
      {
        status: 417,
        code: "EXPECTATION_FAILED",
        message: "only the expectation 100-continue is supported",
      },
      "expect",
    );
  });

  it("refuses a protocol upgrade with 403 and the JSON error body", async () => {
    const upgrade =
      "GET /api/categories HTTP/1.1\r\nhost: acceptance\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n";
    expectRawError(
      await raw(upgrade),
      {
        status: 403,
        code: "PERMISSION_DENIED",
        message: "protocol upgrades are not supported",
      },
      "upgrade",
    );
  });

  it("still serves a well-formed request written the same way", async () => {
    const answer = await raw(get());
    expect(answer.status, answer.raw.slice(0, 300)).to.equal(200);
  });
});
