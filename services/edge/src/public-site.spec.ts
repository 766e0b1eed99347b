/**
 * The public site (public-site.ts, web-app-files.ts) through a real local edge on a real port:
 * the web app at `/` and on its pages, its files, and the API, the probes and the reference page
 * as they were. test/envoy/envoy-edge.spec.ts holds the Envoy edge to the same answers.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRouterTransport } from "@connectrpc/connect";
import { expect } from "chai";
import { ProductService } from "@commerce/runtime/gen/commerce/product/v1/product_pb.js";
import type { DualProtocolServer } from "@commerce/runtime/server";
import { startLoopbackEdge } from "./testing/loopback-edge.js";
import { createPublicSite, readPublicSiteFiles } from "./public-site.js";

const appIndex = readFileSync(fileURLToPath(new URL("../site/app/index.html", import.meta.url)), "utf8");
const noRoute = { status: 404, code: "NOT_FOUND", message: "no route for this path" };
const appPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

describe("the public site at the local edge", () => {
  let server: DualProtocolServer;
  let base = "";

  before(async () => {
    const transport = createRouterTransport(({ service }) => {
      service(ProductService, {
        listCategories: () => ({ categories: [{ id: "books", name: "Books" }] }),
      });
    });
    ({ base, server } = await startLoopbackEdge({
      services: [ProductService],
      transportFor: () => transport,
      site: createPublicSite(readPublicSiteFiles()),
    }));
  });

  after(() => server.close(100));

  it("answers / and each page of the app with its index.html, revalidated on every visit, under the app's policy", async () => {
    for (const path of ["/", "/products/prd_42", "/admin/orders", "/login?next=%2Fcart", "/docsx"]) {
      const page = await fetch(`${base}${path}`);
      expect(page.status, path).to.equal(200);
      expect(await page.text(), path).to.equal(appIndex);
      expect(
        {
          type: page.headers.get("content-type"),
          cache: page.headers.get("cache-control"),
          policy: page.headers.get("content-security-policy"),
          sniff: page.headers.get("x-content-type-options"),
          referrer: page.headers.get("referrer-policy"),
          opener: page.headers.get("cross-origin-opener-policy"),
        },
        path,
      ).to.deep.equal({
        type: "text/html; charset=utf-8",
        cache: "no-cache",
        policy: appPolicy,
        sniff: "nosniff",
        referrer: "no-referrer",
        opener: "same-origin",
      });
    }
    const first = await fetch(`${base}/cart`);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).to.match(/^"[\w-]{27}"$/);
    const again = await fetch(`${base}/orders`, { headers: { "if-none-match": etag } });
    expect(again.status).to.equal(304);
    expect(await again.text()).to.equal("");
  });

  it("serves the files index.html names, hashed, to be kept a year", async () => {
    const named = [...appIndex.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((found) => found[1] ?? "");
    expect(named.some((path) => path.endsWith(".js"))).to.equal(true);
    for (const path of named) {
      const file = await fetch(`${base}${path}`);
      expect(file.status, path).to.equal(200);
      expect(file.headers.get("cache-control"), path).to.equal("public, max-age=31536000, immutable");
      expect(file.headers.get("x-content-type-options"), path).to.equal("nosniff");
      expect((await file.arrayBuffer()).byteLength, path).to.be.greaterThan(0);
    }
    const script = named.find((path) => path.endsWith(".js")) ?? "";
    const head = await fetch(`${base}${script}`, { method: "HEAD" });
    expect(head.headers.get("content-type")).to.equal("text/javascript; charset=utf-8");
  });

  it("answers a file it does not have with the JSON 404, not with the app's page", async () => {
    for (const path of ["/assets/nothing-here.js", "/assets/", "/favicon.ico", "/products/prd_42.json"]) {
      const answer = await fetch(`${base}${path}`);
      expect(answer.status, path).to.equal(404);
      expect(await answer.json(), path).to.deep.equal(noRoute);
    }
    const grpcPath = await fetch(`${base}/commerce.product.v1.ProductService/ListCategories`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(grpcPath.status).to.equal(404);
  });

  it("refuses other methods on the app's pages with 405 and Allow, as on the site's files", async () => {
    const answer = await fetch(`${base}/cart`, { method: "POST", body: "{}" });
    expect(answer.status).to.equal(405);
    expect(answer.headers.get("allow")).to.equal("GET, HEAD");
    expect(await answer.json()).to.deep.equal({
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: "use GET or HEAD for this path",
    });
  });

  it("sends a browser back from a hosted checkout (POST or GET) to the order's page with 303, reading nothing it brings", async () => {
    for (const method of ["POST", "GET"]) {
      const answer = await fetch(`${base}/checkout/return/ord_kT3qL9xVb2Rz8N`, {
        method,
        redirect: "manual",
        ...(method === "POST"
          ? {
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: "razorpay_payment_id=pay_1&razorpay_order_id=order_1&razorpay_signature=00",
            }
          : {}),
      });
      expect(
        { status: answer.status, location: answer.headers.get("location"), body: await answer.text() },
        method,
      ).to.deep.equal({ status: 303, location: "/orders/ord_kT3qL9xVb2Rz8N?payment=returned", body: "" });
      expect(answer.headers.get("cache-control"), method).to.equal("no-store");
    }
    const put = await fetch(`${base}/checkout/return/ord_1`, { method: "PUT", body: "x" });
    expect({ status: put.status, allow: put.headers.get("allow") }).to.deep.equal({
      status: 405,
      allow: "GET, HEAD, POST",
    });
    // Only an id of the API's alphabet goes into the address it answers with.
    for (const path of [
      "/checkout/return/",
      "/checkout/return/a%2F%2Fevil.example",
      "/checkout/return/a/b",
    ]) {
      const answer = await fetch(`${base}${path}`, { method: "POST", redirect: "manual" });
      expect(answer.status, path).to.equal(404);
      expect(await answer.json(), path).to.deep.equal(noRoute);
    }
  });

  it("lets the app's pages post a form to the payment gateway's origin only when one is configured", () => {
    const policyOf = (files: ReadonlyMap<string, { headers?: Readonly<Record<string, string>> }>) =>
      files.get("/")?.headers?.["content-security-policy"];
    expect(policyOf(readPublicSiteFiles())).to.equal(appPolicy);
    expect(policyOf(readPublicSiteFiles({ paymentGatewayUrl: "https://api.razorpay.com/" }))).to.equal(
      appPolicy.replace("form-action 'self';", "form-action 'self' https://api.razorpay.com;"),
    );
  });

  it("leaves the API, the probes and the reference page as they were", async () => {
    const categories = await fetch(`${base}/api/categories`);
    expect(categories.status).to.equal(200);
    expect(await categories.json()).to.deep.equal([{ id: "books", name: "Books" }]);
    for (const path of ["/api", "/api/nothing-here", "/docs/nothing-here", "/healthz/x"]) {
      const answer = await fetch(`${base}${path}`);
      expect(answer.status, path).to.equal(404);
      expect(await answer.json(), path).to.deep.equal(noRoute);
    }
    expect(await (await fetch(`${base}/healthz`)).json()).to.deep.equal({ status: "ok" });
    const reference = await fetch(`${base}/docs/`);
    expect(reference.status).to.equal(200);
    expect(await reference.text()).to.include("/docs/vendor/swagger-ui-bundle.js");
    expect(reference.headers.get("content-security-policy")).to.include("style-src 'self' 'unsafe-inline'");
  });
});
