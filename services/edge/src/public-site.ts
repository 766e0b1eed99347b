/**
 * What the platform's public address serves besides the API: the API's description at
 * `/openapi.json` (generated from the contract by `npm run generate`), its reference page
 * under `/docs/` (Swagger UI, from this package's `site/` folder, whose `vendor/` files
 * `npm run generate` copies from the swagger-ui-dist package), and the web app at `/` (the
 * storefront and the admin console, built by `npm run generate` into `site/app`:
 * web-app-files.ts; ADR 0089), with the way back from a gateway's hosted checkout (ADR 0090). Nothing is fetched from outside: every file is ours to serve. The local
 * edge serves it in front of its routes; behind Envoy the `web` deployable does (web/main.ts;
 * ADR 0027).
 *
 * The app routes in the browser: a reload or a link to one of its pages (`/products/42`,
 * `/admin/orders`) must get its index.html, while a file it does not have is a 404, not a page.
 *
 * The files are read once, at start, and served from memory with a strong ETag, so a browser's
 * or a proxy's revalidation costs a 304.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { type DualRequest, type DualResponse, errorBody, sendError } from "@commerce/runtime/server";
import { readWebAppFiles, type WebAppOptions } from "./web-app-files.js";

export interface SiteFile {
  readonly contentType: string;
  readonly body: Buffer;
  readonly cacheControl: string;
  /** Headers beyond the content's own (a page's security policy). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * The paths of the site, as an edge routes them: these exactly, everything under the prefixes
 * (an unknown file there is the site's own 404), and the app's routes, after the API's. Envoy
 * sends them to the `web` deployable (envoy/src/site-routes.ts).
 */
export const publicSitePaths = {
  exact: ["/openapi.json", "/docs"],
  prefixes: ["/docs/", "/assets/", "/checkout/return/"],
  /**
   * The web app's pages, answered with its index.html: a path without a dot (whole-path match,
   * the same in JavaScript and in Envoy's RE2). A dot names a file (`/favicon.ico`, a gRPC
   * method `/pkg.Service/Method`): those the app does not have stay 404.
   */
  appPages: "/[^.]*",
} as const;

/** Paths that are never the app's pages, each with what is under it: the API, the probes, the site's files. */
const notAppPages = ["/api", "/healthz", "/readyz", "/docs", "/openapi.json", "/assets", "/checkout/return"];

const appPage = new RegExp(`^${publicSitePaths.appPages}$`);

/** Whether `pathname` is one of the web app's pages (answered with its index.html). */
export function isAppPage(pathname: string): boolean {
  return (
    appPage.test(pathname) &&
    !notAppPages.some((path) => pathname === path || pathname.startsWith(`${path}/`))
  );
}

/** Serves a request for one of its paths; false for any other path. */
export type PublicSite = (req: DualRequest, res: DualResponse, pathname: string) => boolean;

/** What a page of ours may load and do: only this origin's files and API. */
const pageSecurity = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; " +
    "frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
};

const fileOf = (url: string): string => fileURLToPath(url);
const siteFile = (path: string): string => fileOf(new URL(`../site/${path}`, import.meta.url).href);

/**
 * The site's files by path, read from where `npm run generate` and the repository put them;
 * `/` is the web app's index.html, which createPublicSite also answers the app's pages with.
 */
export function readPublicSiteFiles(options: WebAppOptions = {}): ReadonlyMap<string, SiteFile> {
  const day = "public, max-age=86400";
  const fiveMinutes = "public, max-age=300";
  const file = (
    path: string,
    contentType: string,
    cacheControl: string,
    headers?: Record<string, string>,
  ) => ({
    contentType,
    body: readFileSync(path),
    cacheControl,
    ...(headers === undefined ? {} : { headers }),
  });
  const page = file(siteFile("docs/index.html"), "text/html; charset=utf-8", fiveMinutes, pageSecurity);
  return new Map<string, SiteFile>([
    [
      "/openapi.json",
      // Resolved as a require would: `import.meta.resolve` is missing where tsx loads this
      // module as CommonJS (mocha's specs).
      file(
        createRequire(import.meta.url).resolve("@commerce/runtime/gen/openapi.json"),
        "application/json",
        fiveMinutes,
      ),
    ],
    ["/docs", page],
    ["/docs/", page],
    ["/docs/docs.js", file(siteFile("docs/docs.js"), "text/javascript; charset=utf-8", fiveMinutes)],
    ["/docs/docs.css", file(siteFile("docs/docs.css"), "text/css; charset=utf-8", fiveMinutes)],
    [
      "/docs/vendor/swagger-ui-bundle.js",
      file(siteFile("docs/vendor/swagger-ui-bundle.js"), "text/javascript; charset=utf-8", day),
    ],
    [
      "/docs/vendor/swagger-ui.css",
      file(siteFile("docs/vendor/swagger-ui.css"), "text/css; charset=utf-8", day),
    ],
    ["/docs/vendor/LICENSE", file(siteFile("docs/vendor/LICENSE"), "text/plain; charset=utf-8", day)],
    [
      "/docs/vendor/swagger-ui-bundle.js.LICENSE.txt",
      file(siteFile("docs/vendor/swagger-ui-bundle.js.LICENSE.txt"), "text/plain; charset=utf-8", day),
    ],
    ...readWebAppFiles(options),
  ]);
}

/**
 * `/checkout/return/{orderId}`: where a gateway's hosted checkout sends the customer's browser
 * back, with a POST of what was paid (ADR 0090). It goes on to the order's page (303, so as a
 * GET), which watches the order until the gateway's signed callback has settled the payment:
 * the browser's word is not read, let alone trusted. An order id is what the API makes:
 * letters, digits, `_` and `-`.
 */
const checkoutReturn = /^\/checkout\/return\/([\w-]{1,64})$/;

const returnFromCheckout: PublicSite = (req, res, pathname) => {
  const orderId = checkoutReturn.exec(pathname)?.[1];
  if (orderId === undefined) return false;
  if (req.method !== "POST" && req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD, POST");
    sendError(res, errorBody(405, "METHOD_NOT_ALLOWED", "use POST or GET for this path"));
    return true;
  }
  res.writeHead(303, {
    location: `/orders/${orderId}?payment=returned`,
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "content-length": 0,
  });
  res.end();
  return true;
};

/**
 * Serves `files` by exact path, and the file at `/` (the app's index.html) for every other
 * path that is one of the app's pages; any other method is 405. The way back from a hosted
 * checkout is answered too.
 */
export function createPublicSite(files: ReadonlyMap<string, SiteFile>): PublicSite {
  const served = new Map(
    [...files].map(([path, file]) => [
      path,
      { ...file, etag: `"${createHash("sha256").update(file.body).digest("base64url").slice(0, 27)}"` },
    ]),
  );
  const app = served.get("/");
  return (req, res, pathname) => {
    if (pathname.startsWith("/checkout/return/")) return returnFromCheckout(req, res, pathname);
    const file = served.get(pathname) ?? (isAppPage(pathname) ? app : undefined);
    if (file === undefined) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      sendError(res, errorBody(405, "METHOD_NOT_ALLOWED", "use GET or HEAD for this path"));
      return true;
    }
    const headers = {
      "content-type": file.contentType,
      "cache-control": file.cacheControl,
      etag: file.etag,
      "x-content-type-options": "nosniff",
      ...file.headers,
    };
    if (req.headers["if-none-match"] === file.etag) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    res.writeHead(200, { ...headers, "content-length": file.body.length });
    if (req.method === "HEAD") res.end();
    else res.end(file.body);
    return true;
  };
}
