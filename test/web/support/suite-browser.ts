/**
 * One Chromium for a spec file's tests: launched before them (installed into the project's
 * cache first on a machine's first run) and closed after them.
 */
import { launchBrowser, type TestBrowser } from "#testing/browser.js";

/** Registers the suite's hooks; the function it returns gives the running browser. */
export function useSuiteBrowser(): () => TestBrowser {
  let browser: TestBrowser | undefined;
  before(async function () {
    // Fetching and unpacking Chromium on a machine's first run takes minutes.
    this.timeout(15 * 60_000);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error("the browser is launched in the suite's before hook");
    return browser;
  };
}
