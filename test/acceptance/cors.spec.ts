/**
 * A browser app on another origin calling the API (CORS), on both edges alike: the deployment
 * allows the origin the environment names (CORS_ALLOWED_ORIGINS), and no other.
 */
import { expect } from "chai";
import { registeredUser } from "./support/accounts.js";
import { api, type ApiResponse } from "./support/api.js";
import { allowedOrigin } from "./support/environment.js";

const elsewhere = "https://elsewhere.example.test";
const exposed = "allow, retry-after, www-authenticate";

/** The Access-Control-* headers of an answer, by name. */
function corsHeadersOf(response: ApiResponse): Record<string, string> {
  return Object.fromEntries(
    [...response.headers.entries()].filter(([name]) => name.startsWith("access-control-")),
  );
}

function preflight(path: string, origin: string, method: string, headers?: string): Promise<ApiResponse> {
  return api("OPTIONS", path, {
    headers: {
      origin,
      "access-control-request-method": method,
      ...(headers === undefined ? {} : { "access-control-request-headers": headers }),
    },
  });
}

describe("CORS: a browser app on another origin", () => {
  let shop: string;

  before(() => {
    shop = allowedOrigin();
    expect(shop).to.not.equal(elsewhere);
  });

  it("reads a public answer from the allowed origin, which is named, never with credentials", async () => {
    const response = await api("GET", "/api/categories", { headers: { origin: shop } });
    expect(response.status).to.equal(200);
    expect(corsHeadersOf(response)).to.deep.equal({
      "access-control-allow-origin": shop,
      "access-control-expose-headers": exposed,
    });
    expect(response.headers.get("vary")).to.equal("Origin");
  });

  it("gets the preflight of an authenticated POST /api/orders answered without a token: 204, the path's methods and the headers it asked for", async () => {
    const response = await preflight("/api/orders", shop, "POST", "authorization, content-type");
    expect(response.status).to.equal(204);
    expect(response.text).to.equal("");
    const headers = corsHeadersOf(response);
    expect(headers["access-control-allow-origin"]).to.equal(shop);
    expect(headers["access-control-allow-methods"]).to.equal("POST, GET");
    expect(headers["access-control-allow-headers"]?.split(", ").slice(0, 2)).to.deep.equal([
      "authorization",
      "content-type",
    ]);
    expect(headers["access-control-max-age"]).to.match(/^\d+$/);
    expect(headers).to.not.have.property("access-control-allow-credentials");
    expect(response.headers.get("vary")).to.equal("Origin");
  });

  it("then calls an authenticated route from that origin and reads the answer", async () => {
    const user = await registeredUser();
    const response = await api("GET", "/api/orders/my", { token: user.token, headers: { origin: shop } });
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal([]);
    expect(response.headers.get("access-control-allow-origin")).to.equal(shop);
  });

  it("reads the JSON body of a 401, and its WWW-Authenticate", async () => {
    const response = await api("POST", "/api/orders", {
      body: { items: [{ productId: "1", quantity: 1 }] },
      headers: { origin: shop },
    });
    expect(response.status).to.equal(401);
    expect(response.body).to.deep.equal({
      status: 401,
      code: "UNAUTHENTICATED",
      message: "a valid bearer token is required",
    });
    expect(response.headers.get("www-authenticate")).to.equal('Bearer realm="commerce"');
    expect(corsHeadersOf(response)).to.deep.equal({
      "access-control-allow-origin": shop,
      "access-control-expose-headers": exposed,
    });
  });

  const errors: [string, string, string, number][] = [
    ["an unknown product", "GET", "/api/products/999999999", 404],
    ["an unknown query parameter", "GET", "/api/categories?debug=1", 400],
    ["another method of a known path", "DELETE", "/api/categories", 405],
    ["an unknown path", "GET", "/api/nothing-here", 404],
  ];
  for (const [what, method, path, status] of errors) {
    it(`reads the error body of ${what} (${status})`, async () => {
      const response = await api(method, path, { headers: { origin: shop } });
      expect(response.status).to.equal(status);
      expect(response.body).to.include({ status });
      expect(corsHeadersOf(response)).to.deep.equal({
        "access-control-allow-origin": shop,
        "access-control-expose-headers": exposed,
      });
    });
  }

  it("gets a preflight for a path no route has answered without methods, so no call follows but a safe one", async () => {
    const response = await preflight("/api/nothing-here", shop, "PUT");
    expect(response.status).to.equal(204);
    expect(response.headers.get("access-control-allow-origin")).to.equal(shop);
    expect(response.headers.has("access-control-allow-methods")).to.equal(false);
  });
});

describe("CORS: an origin the deployment does not allow", () => {
  for (const origin of [elsewhere, "null"]) {
    it(`is never named, and reads nothing (${origin})`, async () => {
      const response = await api("GET", "/api/categories", { headers: { origin } });
      expect(response.status).to.equal(200);
      expect(corsHeadersOf(response)).to.deep.equal({});
      expect(response.headers.get("vary")).to.equal("Origin");
    });
  }

  it("gets its preflight answered as the OPTIONS request it is: 405 with Allow, nothing naming it", async () => {
    const response = await preflight("/api/orders", elsewhere, "POST", "authorization, content-type");
    expect(response.status).to.equal(405);
    expect(response.headers.get("allow")).to.equal("POST, GET");
    expect(response.body).to.deep.equal({
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: "use POST or GET for this path",
    });
    expect(corsHeadersOf(response)).to.deep.equal({});
  });

  it("gets nothing from a 401 either", async () => {
    const response = await api("POST", "/api/orders", { body: {}, headers: { origin: elsewhere } });
    expect(response.status).to.equal(401);
    expect(corsHeadersOf(response)).to.deep.equal({});
  });
});
