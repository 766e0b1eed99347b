/**
 * The web app's files (web/, a storefront and an admin console), as `npm run generate` built
 * them into this package's `site/app` folder: `index.html`, and under `assets/` the scripts,
 * styles and images it loads, each named after a hash of its content.
 *
 * - A hashed file never changes under its name: browsers and proxies keep it a year without
 *   asking again (`immutable`).
 * - index.html names the hashed files of the current build: a browser revalidates it on every
 *   visit (`no-cache`; the strong ETag makes that a 304), so a new build is seen at once.
 * - Its pages may load and do only what comes from our origin: scripts and styles from files
 *   (no inline script or style, no eval), calls to this origin's API, and no framing; a form
 *   may leave for the payment gateway's checkout only.
 */
import { readFileSync, readdirSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { SiteFile } from "./public-site.js";

const appFolder = fileURLToPath(new URL("../site/app/", import.meta.url));

export interface WebAppOptions {
  /**
   * PAYMENT_GATEWAY_URL: the app's pages may post a form to this origin besides ours, as they
   * send the customer to the gateway's hosted checkout (ADR 0090). Unset: to ours only.
   */
  readonly paymentGatewayUrl?: string | undefined;
}

/** What a page of the app may load and do. */
export function appPageSecurity(options: WebAppOptions = {}): Readonly<Record<string, string>> {
  const gateway = options.paymentGatewayUrl;
  // An origin is `scheme://host[:port]`: nothing in it can end the directive.
  const formAction = gateway === undefined ? "'self'" : `'self' ${new URL(gateway).origin}`;
  return {
    "content-security-policy":
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
      `font-src 'self'; object-src 'none'; base-uri 'none'; form-action ${formAction}; frame-ancestors 'none'`,
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  };
}

const contentTypes: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

const immutable = "public, max-age=31536000, immutable";

/**
 * The app's files by path: `/` is its index.html (the edge answers the app's client-side routes
 * with it too: public-site.ts), `/assets/<name>` each built file. Throws when the app was not
 * built, or built a kind of file this list has no type for.
 */
export function readWebAppFiles(options: WebAppOptions = {}): Map<string, SiteFile> {
  const files = new Map<string, SiteFile>([
    [
      "/",
      {
        contentType: "text/html; charset=utf-8",
        body: readFileSync(`${appFolder}index.html`),
        cacheControl: "no-cache",
        headers: appPageSecurity(options),
      },
    ],
  ]);
  for (const name of readdirSync(`${appFolder}assets`).sort()) {
    const contentType = contentTypes[extname(name)];
    if (contentType === undefined) throw new Error(`the web app built ${name}, a file of no known type`);
    files.set(`/assets/${name}`, {
      contentType,
      body: readFileSync(`${appFolder}assets/${name}`),
      cacheControl: immutable,
    });
  }
  return files;
}
