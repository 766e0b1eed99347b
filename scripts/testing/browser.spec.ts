/**
 * The test browser end to end on loopback: Debian's Chromium from the project's cache (installed
 * on the first run), pages served by a small HTTP server of this spec under the same kind of
 * Content-Security-Policy as the platform's site (scripts from our origin only, none inline).
 */
import { expect } from "chai";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkAccessibility, launchBrowser, viewports, type TestBrowser } from "./browser.js";

const policy = "default-src 'self'; frame-ancestors 'none'";

/** What the server answers, by path: type, body, and whether the policy applies. */
const site: Readonly<Record<string, { type: string; body: string; policy?: boolean }>> = {
  "/": {
    type: "text/html",
    policy: true,
    body: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Greeter</title><script src="/greet.js" defer></script></head>
<body><main>
  <h1>Greeter</h1>
  <form><label for="name">Your name</label> <input id="name" name="name"> <button>Greet</button></form>
  <p role="status" id="greeting"></p>
  <img src="/dot.svg" alt="A black dot" width="10" height="10">
</main></body>
</html>`,
  },
  "/greet.js": {
    type: "text/javascript",
    body: `document.querySelector("form").addEventListener("submit", (event) => {
  event.preventDefault();
  document.querySelector("#greeting").textContent = "Hello, " + document.querySelector("#name").value + "!";
});`,
  },
  "/favicon.ico": {
    type: "image/svg+xml",
    body: `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16"/></svg>`,
  },
  "/dot.svg": {
    type: "image/svg+xml",
    body: `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="5"/></svg>`,
  },
  "/unlabelled": {
    type: "text/html",
    policy: true,
    body: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Unlabelled</title></head>
<body><main><h1>Unlabelled</h1><input id="nameless"><img src="/dot.svg"></main></body>
</html>`,
  },
  "/faulty": {
    type: "text/html",
    body: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Faulty</title><script src="/faulty.js"></script></head>
<body><img src="http://192.0.2.1/pixel.png" alt=""></body>
</html>`,
  },
  "/faulty.js": {
    type: "text/javascript",
    body: `console.error("stock unavailable");
throw new Error("cart is broken");`,
  },
};

describe("the test browser: Debian's Chromium driven by playwright-core, on loopback", () => {
  let server: Server;
  let baseUrl: string;
  let browser: TestBrowser;
  let screenshots: string;
  const served: string[] = [];

  before(async function () {
    // The first run on a machine fetches and unpacks Chromium into the project's cache.
    this.timeout(15 * 60_000);
    server = createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
      served.push(path);
      const resource = site[path];
      if (resource === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, {
        "content-type": `${resource.type}; charset=utf-8`,
        ...(resource.policy === true ? { "content-security-policy": policy } : {}),
      });
      response.end(resource.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    screenshots = await mkdtemp(join(tmpdir(), "browser-spec-"));
    browser = await launchBrowser();
  });

  after(async () => {
    await browser.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(screenshots, { recursive: true, force: true });
  });

  it("is Chromium 1xx", () => {
    expect(browser.version).to.match(/^1\d\d\./);
  });

  it("types into a labelled field, clicks, and reads the answer the page's own script wrote", async () => {
    const { page, errors, offsiteRequests } = await browser.openPage("desktop");
    await page.goto(`${baseUrl}/`);
    await page.getByLabel("Your name").fill("Ada");
    await page.getByRole("button", { name: "Greet" }).click();
    await page.getByRole("status").getByText("Hello, Ada!").waitFor();
    expect(await page.getByRole("status").textContent()).to.equal("Hello, Ada!");
    expect(served).to.include("/greet.js");
    expect(errors).to.deep.equal([]);
    expect(offsiteRequests).to.deep.equal([]);
  });

  it("writes a screenshot of the window: a PNG the size of the phone preset", async () => {
    const { page, screenshot } = await browser.openPage("phone");
    await page.goto(`${baseUrl}/`);
    const path = join(screenshots, "phone", "greeter.png");
    await screenshot(path);
    const png = await readFile(path);
    expect(png.subarray(0, 8).toString("hex")).to.equal("89504e470d0a1a0a");
    // The IHDR chunk, first after the signature: width and height, big-endian.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).to.deep.equal([
      viewports.phone.width,
      viewports.phone.height,
    ]);
  });

  it("records console errors, uncaught exceptions and requests that leave 127.0.0.1", async () => {
    const { page, errors, offsiteRequests } = await browser.openPage("desktop");
    const uncaught = page.waitForEvent("pageerror");
    const offsite = page.waitForRequest((request) => request.url().startsWith("http://192.0.2.1/"));
    await page.goto(`${baseUrl}/faulty`, { waitUntil: "domcontentloaded" });
    await Promise.all([uncaught, offsite]);
    // Besides ours, the console tells of the refused image (in an order of its own).
    expect(errors).to.include.members(["stock unavailable", "uncaught: cart is broken"]);
    expect(offsiteRequests).to.deep.equal(["http://192.0.2.1/pixel.png"]);
  });

  it("reports an input without a label and an image without a text alternative", async () => {
    const { page } = await browser.openPage("desktop");
    await page.goto(`${baseUrl}/unlabelled`);
    const violations = await checkAccessibility(page);
    expect(violations.map(({ rule, impact, targets }) => ({ rule, impact, targets }))).to.deep.equal([
      { rule: "image-alt", impact: "critical", targets: ["img"] },
      { rule: "label", impact: "critical", targets: ["#nameless"] },
    ]);
  });

  it("finds no serious violation on a page with labels, text alternatives and a language, under its policy", async () => {
    const { page, errors } = await browser.openPage("phone");
    await page.goto(`${baseUrl}/`);
    expect(await checkAccessibility(page)).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
  });
});
