/**
 * The web app at the platform's public address, whichever edge serves it: the local edge in
 * embedded mode, the `web` deployable behind Envoy in the topology. What a browser is sent; the
 * app itself is driven in a browser by its own journeys.
 */
import { expect } from "chai";
import { acceptanceEnvironment } from "./support/environment.js";

const at = (path: string): string => new URL(path, acceptanceEnvironment().baseUrl).href;
const noRoute = { status: 404, code: "NOT_FOUND", message: "no route for this path" };

/** The `src` and `href` of the page's own files (under /assets/). */
function filesOf(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="(\/assets\/[^"]+)"/g)].map((found) => found[1] ?? "");
}

describe("The web app", () => {
  it("answers / and its pages with one index.html, revalidated each visit, under a policy of our origin only", async () => {
    const home = await fetch(at("/"));
    expect(home.status).to.equal(200);
    const index = await home.text();
    expect(index).to.include('<div id="root"></div>');
    for (const path of ["/", "/products/anything", "/admin/orders", "/login?next=%2Fcart"]) {
      const page = await fetch(at(path), { headers: { origin: "https://elsewhere.example.test" } });
      expect(page.status, path).to.equal(200);
      expect(await page.text(), path).to.equal(index);
      expect(page.headers.get("content-type"), path).to.equal("text/html; charset=utf-8");
      expect(page.headers.get("cache-control"), path).to.equal("no-cache");
      expect(page.headers.get("x-content-type-options"), path).to.equal("nosniff");
      expect(page.headers.get("referrer-policy"), path).to.equal("no-referrer");
      const policy = (page.headers.get("content-security-policy") ?? "").split("; ");
      expect(policy, path).to.include.members([
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ]);
      expect(policy.join("; "), path).to.not.include("unsafe");
      expect(
        [...page.headers.keys()].filter((name) => name.startsWith("access-control-")),
        path,
      ).to.deep.equal([]);
    }
  });

  it("serves the files its page names, hashed and kept a year, and a file it does not have is the JSON 404", async () => {
    const files = filesOf(await (await fetch(at("/"))).text());
    expect(files.filter((path) => path.endsWith(".js"))).to.have.length(1);
    for (const path of files) {
      const file = await fetch(at(path));
      expect(file.status, path).to.equal(200);
      expect(file.headers.get("cache-control"), path).to.equal("public, max-age=31536000, immutable");
      expect((await file.arrayBuffer()).byteLength, path).to.be.greaterThan(0);
    }
    for (const path of ["/assets/nothing-here.js", "/favicon.ico"]) {
      const missing = await fetch(at(path));
      expect(missing.status, path).to.equal(404);
      expect(await missing.json(), path).to.deep.equal(noRoute);
    }
  });

  it("leaves /api/ to the API: an unknown path there is the API's 404, not the app", async () => {
    for (const path of ["/api/nothing-here", "/api"]) {
      const answer = await fetch(at(path));
      expect(answer.status, path).to.equal(404);
      expect(await answer.json(), path).to.deep.equal(noRoute);
    }
  });
});
