/**
 * Envoy's REST filter held to the same notation cases as the local edge
 * (services/edge/src/notation-cases.ts): a real Envoy with the generated filter, in front of
 * the fixed upstream (scripts/bench/fixed-product-upstream.ts), which serves GetProduct and
 * PlaceOrder and answers anything else UNIMPLEMENTED. A number in plain decimal notation goes
 * through; any other is refused 400 with the local edge's message, before anything goes up.
 */
import { expect } from "chai";
import { SignJWT } from "jose";
import { notationCases } from "@commerce/edge/testing";
import { errorBody } from "@commerce/runtime/server";
import { fieldNotation, parameterNotation } from "@commerce/edge/rest-mapping";
import { startChildServer, type ChildServer } from "../../scripts/bench/child-server.js";
import { hostPortOf, startEnvoyProcess, type EnvoyProcess } from "./envoy-process.js";

const jwtSecret = "r".repeat(64);

describe("Envoy's REST filter: number notation, the local edge's cases", function () {
  this.timeout(60_000);
  let upstream: ChildServer;
  let envoy: EnvoyProcess;
  let customer: string;
  let admin: string;

  const sign = (role: string): Promise<string> =>
    new SignJWT({ role, uid: 7 })
      .setProtectedHeader({ alg: "HS512" })
      .setSubject(`${role.toLowerCase()}@example.test`)
      .setExpirationTime("10m")
      .sign(Buffer.from(jwtSecret, "utf8"));

  before(async () => {
    upstream = await startChildServer("fixed-product-upstream.ts");
    const fixed = [hostPortOf(upstream.url)];
    envoy = await startEnvoyProcess({
      upstreams: new Map([
        ["product", fixed],
        ["order", fixed],
      ]),
      secrets: { jwtSecret, edgeSecret: "s".repeat(32) },
    });
    customer = await sign("CUSTOMER");
    admin = await sign("ADMIN");
    // Envoy answers 503 until its first health check of the upstream passed.
    for (let tries = 0; (await fetch(`${envoy.baseUrl}/api/products/any`)).status !== 200; tries++) {
      if (tries > 100) throw new Error("Envoy never routed to the fixed upstream");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  after(async () => {
    await envoy.stop();
    await upstream.stop();
  });

  async function post(path: string, token: string, body: string): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${envoy.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
    });
    return { status: response.status, body: await response.json() };
  }

  // An empty value is refused before its notation is looked at (on both edges, with its own message).
  const queryCases = notationCases.filter(({ text }) => text !== "");

  it("takes a query parameter of an unsigned integer (page) exactly when the local edge does", async () => {
    for (const { text, u } of queryCases) {
      const response = await fetch(`${envoy.baseUrl}/api/products?page=${encodeURIComponent(text)}`);
      const body: unknown = await response.json();
      if (u) {
        // Through to the fixed upstream, which does not serve ListProducts.
        expect(response.status, `page=${text}`).to.equal(501);
      } else {
        expect({ status: response.status, body }, `page=${text}`).to.deep.equal({
          status: 400,
          body: errorBody(400, "INVALID_ARGUMENT", parameterNotation("page", "u")),
        });
      }
    }
  });

  // In a JSON body only JSON numbers are numbers; the other texts are not JSON at all.
  const bodyCases = notationCases.filter(({ text }) => {
    try {
      return typeof JSON.parse(text) === "number" && text.trim() === text;
    } catch {
      return false;
    }
  });

  it("takes a JSON number for a signed integer field (an order's quantity) exactly when the local edge does", async () => {
    expect(bodyCases.length).to.be.greaterThan(8);
    for (const { text, i } of bodyCases) {
      const answer = await post(
        "/api/orders",
        customer,
        `{"items":[{"productId":"p-1","quantity":${text}}]}`,
      );
      if (i) {
        expect(answer.status, `quantity ${text}`).to.equal(201);
      } else {
        expect(answer, `quantity ${text}`).to.deep.equal({
          status: 400,
          body: errorBody(400, "INVALID_ARGUMENT", fieldNotation("quantity", "i")),
        });
      }
    }
  });

  it("takes a JSON number for a floating field (a product's price) exactly when the local edge does", async () => {
    for (const { text, f } of bodyCases) {
      const answer = await post(
        "/api/products",
        admin,
        `{"name":"N","description":"D","price":${text},"stock":1,"brand":"B","categoryId":"books"}`,
      );
      if (f) {
        expect(answer.status, `price ${text}`).to.equal(501);
      } else {
        expect(answer, `price ${text}`).to.deep.equal({
          status: 400,
          body: errorBody(400, "INVALID_ARGUMENT", fieldNotation("price", "f")),
        });
      }
    }
  });
});
