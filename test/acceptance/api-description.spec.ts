/**
 * The API's description at the platform's public address, whichever edge serves it: the local
 * edge in embedded mode, the `web` deployable behind Envoy in the topology and the chart
 * (ADR 0014, ADR 0027).
 */
import { expect } from "chai";
import { api } from "./support/api.js";
import { acceptanceEnvironment } from "./support/environment.js";

const at = (path: string): string => new URL(path, acceptanceEnvironment().baseUrl).href;

/** The `src` of every script and the `href` of every stylesheet of a page. */
function assetsOf(html: string): { scripts: string[]; styles: string[] } {
  const attribute = (tag: string, name: string): string | undefined =>
    new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].flatMap(([tag]) => attribute(tag, "src") ?? []);
  const styles = [...html.matchAll(/<link\b[^>]*>/g)]
    .filter(([tag]) => attribute(tag, "rel") === "stylesheet")
    .flatMap(([tag]) => attribute(tag, "href") ?? []);
  return { scripts, styles };
}

describe("The API's description and its reference page", () => {
  it("serves GET /openapi.json: an OpenAPI 3.1 document of the API, cacheable", async () => {
    const response = await fetch(at("/openapi.json"));
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^application\/json/);
    expect(response.headers.get("cache-control")).to.match(/^public\b/);
    expect(response.headers.get("etag")).to.match(/^"[^"]+"$/);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).to.equal("3.1.0");
    expect(document.paths).to.have.property("/api/orders");
  });

  it("answers 304 without a body to a revalidation with its ETag", async () => {
    const first = await fetch(at("/openapi.json"));
    await first.arrayBuffer(); // read, or the connection stays open and mocha never exits
    const etag = first.headers.get("etag") ?? "";
    const response = await fetch(at("/openapi.json"), { headers: { "if-none-match": etag } });
    expect(response.status).to.equal(304);
    expect(response.headers.get("etag")).to.equal(etag);
    expect(await response.text()).to.equal("");
  });

  it("answers HEAD /openapi.json with the headers and no body", async () => {
    const response = await fetch(at("/openapi.json"), { method: "HEAD" });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^application\/json/);
    expect(await response.text()).to.equal("");
  });

  it("answers another method with 405, Allow and the JSON error body", async () => {
    const response = await api("POST", "/openapi.json", { body: {} });
    expect(response.status).to.equal(405);
    expect(response.headers.get("allow")).to.equal("GET, HEAD");
    expect(response.headers.get("content-type")).to.match(/^application\/json/);
    expect(response.body).to.deep.equal({
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: "use GET or HEAD for this path",
    });
  });

  for (const path of ["/docs", "/docs/"]) {
    it(`serves the reference page at ${path} under a strict content security policy`, async () => {
      const response = await fetch(at(path));
      expect(response.status).to.equal(200);
      expect(response.headers.get("content-type")).to.match(/^text\/html/);
      expect(response.headers.get("x-content-type-options")).to.equal("nosniff");
      const policy = response.headers.get("content-security-policy") ?? "";
      expect(policy).to.include("default-src 'self'").and.include("script-src 'self'");
      const { scripts, styles } = assetsOf(await response.text());
      expect(scripts).to.not.deep.equal([]);
      expect(styles).to.not.deep.equal([]);
    });
  }

  it("loads the page's scripts and styles from its own origin", async () => {
    const { scripts, styles } = assetsOf(await (await fetch(at("/docs/"))).text());
    const origin = new URL(acceptanceEnvironment().baseUrl).origin;
    for (const [assets, type] of [
      [scripts, /^text\/javascript/],
      [styles, /^text\/css/],
    ] as const) {
      for (const asset of assets) {
        expect(asset, asset).to.match(/^\/[^/]/);
        const url = new URL(asset, at("/docs/"));
        expect(url.origin, asset).to.equal(origin);
        const response = await fetch(url);
        expect(response.status, asset).to.equal(200);
        expect(response.headers.get("content-type"), asset).to.match(type);
        expect(response.headers.get("x-content-type-options"), asset).to.equal("nosniff");
        expect((await response.arrayBuffer()).byteLength, asset).to.be.greaterThan(0);
      }
    }
  });
});
