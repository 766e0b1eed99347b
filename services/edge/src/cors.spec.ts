/**
 * The local edge's CORS (cors.ts), through a real edge on a real port. The acceptance suite
 * (test/acceptance/cors.spec.ts) holds both edges to the same answers.
 */
import { OrderService } from "@commerce/runtime/gen/commerce/order/v1/order_pb.js";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import { createRouterTransport } from "@connectrpc/connect";
import { expect } from "chai";
import type { DualProtocolServer } from "@commerce/runtime/server";
import type { CorsSettings } from "./cors-settings.js";
import { startLoopbackEdge } from "./testing/loopback-edge.js";

const shop = "https://shop.example.test";
const other = "https://elsewhere.example.test";

/** The Access-Control-* and Vary headers of an answer, by name. */
function corsHeadersOf(response: Response): Record<string, string> {
  return Object.fromEntries(
    [...response.headers.entries()].filter(([name]) => name.startsWith("access-control-") || name === "vary"),
  );
}

describe("the local edge's CORS", () => {
  let calls = 0;
  const servers: DualProtocolServer[] = [];

  async function edgeWith(cors: CorsSettings | undefined): Promise<string> {
    const transport = createRouterTransport(({ service }) => {
      service(ProductService, {
        listCategories() {
          calls += 1;
          return {};
        },
      });
    });
    const { base, server } = await startLoopbackEdge({
      services: [ProductService, OrderService],
      transportFor: () => transport,
      ...(cors === undefined ? {} : { cors }),
    });
    servers.push(server);
    return base;
  }

  const preflight = (base: string, path: string, origin: string): Promise<Response> =>
    fetch(`${base}${path}`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });

  let base = "";
  before(async () => {
    base = await edgeWith({
      allowedOrigins: [shop],
      allowedHeaders: ["x-request-id"],
      maxAgeSeconds: 600,
    });
  });

  after(() => Promise.all(servers.map((server) => server.close(100))));

  it("answers a preflight from an allowed origin itself: 204, the path's methods, no token asked, nothing called", async () => {
    const before = calls;
    const response = await preflight(base, "/api/orders", shop);
    expect(response.status).to.equal(204);
    expect(await response.text()).to.equal("");
    expect(corsHeadersOf(response)).to.deep.equal({
      "access-control-allow-origin": shop,
      "access-control-allow-methods": "POST, GET",
      "access-control-allow-headers": "authorization, content-type, x-request-id",
      "access-control-max-age": "600",
      "access-control-expose-headers": "allow, retry-after, www-authenticate",
      vary: "Origin",
    });
    expect(calls).to.equal(before);
  });

  it("treats a preflight from any other origin as the OPTIONS request it is: 405, nothing naming the origin", async () => {
    const response = await preflight(base, "/api/orders", other);
    expect(response.status).to.equal(405);
    expect(response.headers.get("allow")).to.equal("POST, GET");
    expect(corsHeadersOf(response)).to.deep.equal({ vary: "Origin" });
  });

  it("names an allowed origin in every answer under /api/, errors included", async () => {
    const allowed = {
      "access-control-allow-origin": shop,
      "access-control-expose-headers": "allow, retry-after, www-authenticate",
      vary: "Origin",
    };
    const ok = await fetch(`${base}/api/categories`, { headers: { origin: shop } });
    expect(ok.status).to.equal(200);
    expect(corsHeadersOf(ok)).to.deep.equal(allowed);
    const unauthenticated = await fetch(`${base}/api/orders`, {
      method: "POST",
      headers: { origin: shop, "content-type": "application/json" },
      body: "{}",
    });
    expect(unauthenticated.status).to.equal(401);
    expect(unauthenticated.headers.get("www-authenticate")).to.equal('Bearer realm="commerce"');
    expect(corsHeadersOf(unauthenticated)).to.deep.equal(allowed);
    const wrongMethod = await fetch(`${base}/api/categories`, {
      method: "DELETE",
      headers: { origin: shop },
    });
    expect(wrongMethod.status).to.equal(405);
    expect(corsHeadersOf(wrongMethod)).to.deep.equal(allowed);
    const unknown = await fetch(`${base}/api/nothing-here`, { headers: { origin: shop } });
    expect(unknown.status).to.equal(404);
    expect(corsHeadersOf(unknown)).to.deep.equal(allowed);
  });

  it("answers a preflight for an unknown API path without methods, and leaves other paths alone", async () => {
    const unknown = await preflight(base, "/api/nothing-here", shop);
    expect(unknown.status).to.equal(204);
    expect(unknown.headers.get("access-control-allow-origin")).to.equal(shop);
    expect(unknown.headers.has("access-control-allow-methods")).to.equal(false);
    const probe = await fetch(`${base}/healthz`, { headers: { origin: shop } });
    expect(probe.status).to.equal(200);
    expect(corsHeadersOf(probe)).to.deep.equal({ vary: "Origin" });
  });

  it("never names an origin it does not allow, and never allows credentials", async () => {
    for (const origin of [other, "null", `${shop}.evil.test`, shop.toUpperCase(), ""]) {
      const response = await fetch(`${base}/api/categories`, { headers: { origin } });
      expect(response.status, origin).to.equal(200);
      expect(corsHeadersOf(response), origin).to.deep.equal({ vary: "Origin" });
    }
    const allowed = await preflight(base, "/api/orders", shop);
    expect(allowed.headers.has("access-control-allow-credentials")).to.equal(false);
  });

  it('with "*", names whichever origin asks', async () => {
    const anyBase = await edgeWith({ allowedOrigins: ["*"], allowedHeaders: [], maxAgeSeconds: 0 });
    const response = await preflight(anyBase, "/api/categories", other);
    expect(response.status).to.equal(204);
    expect(corsHeadersOf(response)).to.deep.equal({
      "access-control-allow-origin": other,
      "access-control-allow-methods": "GET",
      "access-control-allow-headers": "authorization, content-type",
      "access-control-max-age": "0",
      "access-control-expose-headers": "allow, retry-after, www-authenticate",
      vary: "Origin",
    });
  });

  it("allows no origin without settings", async () => {
    const plain = await edgeWith(undefined);
    const response = await preflight(plain, "/api/orders", shop);
    expect(response.status).to.equal(405);
    expect(corsHeadersOf(response)).to.deep.equal({ vary: "Origin" });
  });
});
