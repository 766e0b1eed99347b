import { expect } from "chai";
import { publicServices } from "@commerce/runtime/contract";
import { RequestShapeError, transcodeRequest } from "./request-transcoder.js";
import { createRouteTable, type Route } from "./route-table.js";

const table = createRouteTable(publicServices);

function route(verb: string, path: string): { route: Route; params: ReadonlyMap<string, string> } {
  const match = table.match(verb, path);
  if (match.kind !== "found") throw new Error(`no route for ${verb} ${path}`);
  return match;
}

function transcode(
  verb: string,
  path: string,
  body?: unknown,
  query = "",
  contentType = "application/json",
): unknown {
  const { route: r, params } = route(verb, path);
  const raw =
    body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  return transcodeRequest(r, { params, query: new URLSearchParams(query), body: raw, contentType });
}

describe("transcodeRequest", () => {
  it("maps a whole-body JSON object onto the request, spec names included", () => {
    const message = transcode("POST", "/api/auth/register", {
      fullName: "A",
      email: "a@b.c",
      phoneNo: "1234567",
      password: "p",
    });
    expect(message).to.include({ fullName: "A", email: "a@b.c", phoneNo: "1234567", password: "p" });
  });

  it("binds a path variable and a named body field", () => {
    const message = transcode("PUT", "/api/users/addresses/7", {
      street: "s",
      city: "c",
      state: "st",
      pincode: "123",
    }) as {
      addressId: number;
      address: { street: string };
    };
    expect(message.addressId).to.equal(7);
    expect(message.address.street).to.equal("s");
  });

  it("maps a bare JSON array body onto the repeated field the rule names", () => {
    const message = transcode("POST", "/api/products/bulk", [
      { name: "x", price: 1.5, stock: 2, categoryId: "c" },
    ]) as {
      products: { name: string; price: number }[];
    };
    expect(message.products).to.have.length(1);
    expect(message.products[0]).to.include({ name: "x", price: 1.5 });
  });

  it("reads typed query parameters by JSON or proto name", () => {
    const message = transcode("GET", "/api/notifications", undefined, "page=2&size=5&unread=true") as Record<
      string,
      unknown
    >;
    expect(message).to.include({ page: 2, size: 5, unread: true });
    const products = transcode("GET", "/api/products", undefined, "category=Books&brand=Acme") as Record<
      string,
      unknown
    >;
    expect(products).to.include({ category: "Books", brand: "Acme" });
  });

  it("keeps the raw bytes and content type for an HttpBody field", () => {
    const raw = '{"provider_payment_id":"pay_1"}';
    const message = transcode("POST", "/api/payments/callback", raw) as {
      body: { contentType: string; data: Uint8Array };
    };
    expect(message.body.contentType).to.equal("application/json");
    expect(Buffer.from(message.body.data).toString()).to.equal(raw);
  });

  const refused: [string, () => unknown, string][] = [
    [
      "an operator object",
      () => transcode("POST", "/api/auth/login", { email: { $ne: null }, password: "x" }),
      "invalid request",
    ],
    [
      "an unknown body field",
      () => transcode("POST", "/api/auth/login", { email: "a", password: "b", admin: true }),
      "invalid request",
    ],
    ["malformed JSON", () => transcode("POST", "/api/auth/login", "{"), "request body is not valid JSON"],
    ["a missing body", () => transcode("POST", "/api/auth/login"), "a JSON request body is required"],
    [
      "a non-object body",
      () => transcode("POST", "/api/auth/login", [1]),
      "request body must be a JSON object",
    ],
    [
      "another content type",
      () => transcode("POST", "/api/auth/login", { email: "a" }, "", "text/plain"),
      "content type",
    ],
    [
      "an unknown query parameter",
      () => transcode("GET", "/api/users/me", undefined, "x=1"),
      'unknown query parameter "x"',
    ],
    [
      "a non-numeric path id",
      () => transcode("DELETE", "/api/users/addresses/abc"),
      'parameter "address_id" must be a non-negative integer in plain decimal digits',
    ],
    ...["1e0", "0x1", "+1", "01", "-1", " 1", "1.0"].map((id): [string, () => unknown, string] => [
      `the path id ${JSON.stringify(id)}`,
      () => transcode("DELETE", `/api/users/addresses/${encodeURIComponent(id)}`),
      'parameter "address_id" must be a non-negative integer in plain decimal digits',
    ]),
    ...["0x10", "1e1", "05", "%2B5", ""].map((size): [string, () => unknown, string] => [
      `the query number size=${size}`,
      () => transcode("GET", "/api/products", undefined, `size=${size}`),
      'parameter "size" must be a non-negative integer in plain decimal digits',
    ]),
    ...['"0x10"', '"16"', "1e1", "2.0", "-0", "true", "{}"].map(
      (quantity): [string, () => unknown, string] => [
        `the quantity ${quantity}`,
        () => transcode("POST", "/api/orders", `{"items":[{"productId":"p","quantity":${quantity}}]}`),
        'field "quantity" must be a JSON number: an integer in plain decimal digits',
      ],
    ),
    ...['"0x10"', '"12.5"', "1e2", "1E2", '"NaN"', '"Infinity"'].map(
      (price): [string, () => unknown, string] => [
        `the price ${price}`,
        () => transcode("PUT", "/api/products/p1", `{"stock":1,"price":${price}}`),
        'field "price" must be a JSON number: a number in plain decimal notation',
      ],
    ),
    [
      "a hex stock in a bulk item",
      () =>
        transcode("POST", "/api/products/bulk", [{ name: "n", price: 1, stock: "0x10", categoryId: "c" }]),
      'field "stock" must be a JSON number: an integer in plain decimal digits',
    ],
    ...(["[", '{"a":'] as const).flatMap((open): [string, () => unknown, string][] =>
      [101, 10_000].map((depth) => [
        `a body that opens ${depth} ${open === "[" ? "arrays" : "objects"}`,
        () => transcode("POST", "/api/orders", `{"items":${open.repeat(depth)}`),
        "request body nests deeper than 100 levels",
      ]),
    ),
    ...["unread=", "unread"].map((query): [string, () => unknown, string] => [
      `a boolean without a value (${query})`,
      () => transcode("GET", "/api/notifications", undefined, query),
      'parameter "unread" must be true or false',
    ]),
    ...["to=", "from=", "from=2026-01-01&to="].map((query): [string, () => unknown, string] => [
      `a text parameter without a value (${query})`,
      () => transcode("GET", "/api/analytics/revenue", undefined, query),
      "must not be empty",
    ]),
    ...["category=", "brand", "brand=x&category="].map((query): [string, () => unknown, string] => [
      `a list filter without a value (${query})`,
      () => transcode("GET", "/api/products", undefined, query),
      "must not be empty",
    ]),
    [
      "a bad boolean",
      () => transcode("GET", "/api/notifications", undefined, "unread=maybe"),
      "must be true or false",
    ],
    [
      "a repeated singular parameter",
      () => transcode("GET", "/api/products", undefined, "page=1&page=2"),
      "must appear once",
    ],
  ];
  it("accepts numbers in plain decimal notation, and null", () => {
    expect(transcode("PUT", "/api/products/p1", '{"price": 19.9, "stock": 0}')).to.include({
      price: 19.9,
      stock: 0,
    });
    expect(transcode("PUT", "/api/products/p1", '{"price": -0.5, "stock": null}')).to.include({
      price: -0.5,
    });
    expect(transcode("GET", "/api/products", undefined, "size=10&page=0")).to.include({ size: 10, page: 0 });
    expect(transcode("DELETE", "/api/users/addresses/120")).to.include({ addressId: 120 });
  });

  for (const [what, call, message] of refused) {
    it(`refuses ${what} with a RequestShapeError`, () => {
      expect(call).to.throw(RequestShapeError, message);
    });
  }
});
