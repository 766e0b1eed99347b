/**
 * A real browser for tests that use the web app as a person would: Debian's Chromium from the
 * project's cache (scripts/infra/chromium.ts), driven by `playwright-core`.
 *
 * Every page opens in a context of its own (its own cookies and storage) with a window of one of
 * two sizes, and records what a test asserts never happens: errors in the console or uncaught
 * in the page, and requests that leave 127.0.0.1 (the platform and its app are served on
 * loopback; anything else is a dependency on the outside world).
 */
import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { AxeResults, RunOptions } from "axe-core";
import { chromium, type Browser, type Page } from "playwright-core";
import type { ArtifactOptions } from "../cache/cached-artifact.js";
import { ensureChromium } from "../infra/chromium.js";

/**
 * The flags Chromium needs on a closed network: without the background-networking ones it
 * keeps opening connections (updates, field trials, sync) that the network refuses; there is
 * no GPU, and no user namespace for its sandbox.
 */
const chromiumFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The two window sizes the app is tested at, in CSS pixels. */
export const viewports = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
} as const;

export type ViewportName = keyof typeof viewports;

/** A page and what happened in it that a test asserts did not. */
export interface RecordedPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions, in order. */
  readonly errors: readonly string[];
  /** URLs the page requested from anywhere but 127.0.0.1, in order. */
  readonly offsiteRequests: readonly string[];
  /** Writes a PNG of what the window shows (the whole page with `fullPage`) to `path`. */
  readonly screenshot: (path: string, options?: { readonly fullPage?: boolean }) => Promise<void>;
}

export interface TestBrowser {
  /** The browser's version, e.g. "156.0.8078.108". */
  readonly version: string;
  openPage(viewport: ViewportName): Promise<RecordedPage>;
  /** Closes every page and the browser. */
  close(): Promise<void>;
}

/** Starts Chromium headless, installing it into the project's cache first if needed. */
export async function launchBrowser(options: ArtifactOptions = {}): Promise<TestBrowser> {
  const runtime = await ensureChromium(options);
  const browser = await chromium.launch({
    executablePath: runtime.executable,
    env: { ...process.env, ...runtime.env },
    args: chromiumFlags,
  });
  return {
    version: browser.version(),
    openPage: (viewport) => openPage(browser, viewport),
    close: () => browser.close(),
  };
}

async function openPage(browser: Browser, viewport: ViewportName): Promise<RecordedPage> {
  const context = await browser.newContext({ viewport: viewports[viewport] });
  const page = await context.newPage();
  const errors: string[] = [];
  const offsiteRequests: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
  page.on("request", (request) => {
    if (isOffsite(request.url())) offsiteRequests.push(request.url());
  });
  page.on("websocket", (socket) => {
    if (isOffsite(socket.url())) offsiteRequests.push(socket.url());
  });
  return {
    page,
    errors,
    offsiteRequests,
    screenshot: async (path, screenshotOptions = {}) => {
      await mkdir(dirname(path), { recursive: true });
      await page.screenshot({ path, fullPage: screenshotOptions.fullPage ?? false });
    },
  };
}

/** A network request to a host other than 127.0.0.1 (data:, blob: and about: stay inside). */
function isOffsite(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return ["http:", "https:", "ws:", "wss:"].includes(protocol) && hostname !== "127.0.0.1";
}

/** An accessibility rule a page breaks, as axe-core reports it. */
export interface AccessibilityViolation {
  /** axe-core's rule, e.g. "label", "image-alt", "color-contrast". */
  readonly rule: string;
  readonly impact: "serious" | "critical";
  readonly help: string;
  /** CSS selectors of the elements that break it. */
  readonly targets: readonly string[];
}

/** What the page's global scope gains from axe-core's script (it checks the whole document). */
interface WithAxe {
  readonly axe: { run(options: RunOptions): Promise<AxeResults> };
}

const axeScript = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * The serious and critical accessibility violations of what the page shows now, found by
 * axe-core run in the page. Its script is evaluated through the DevTools protocol, which a
 * Content-Security-Policy that forbids inline scripts does not block (a script tag would be).
 */
export async function checkAccessibility(page: Page): Promise<AccessibilityViolation[]> {
  await page.evaluate(await readFile(axeScript, "utf8"));
  const results = await page.evaluate(() =>
    (globalThis as unknown as WithAxe).axe.run({ resultTypes: ["violations"] }),
  );
  return results.violations.flatMap((violation) =>
    violation.impact === "serious" || violation.impact === "critical"
      ? [
          {
            rule: violation.id,
            impact: violation.impact,
            help: violation.help,
            targets: violation.nodes.map((node) => node.target.join(" ")),
          },
        ]
      : [],
  );
}
