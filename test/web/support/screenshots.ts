/**
 * Screenshots of the pages a person meets first, written by the journeys on every run to
 * `.build/screenshots/` (to look at after a run). With UPDATE_SCREENSHOTS=1 the ones the README
 * shows are copied to `docs/images/` as well: refreshing them is one run of the journeys against
 * a fresh `npm start`.
 */
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import type { RecordedPage } from "#testing/browser.js";

const root = join(import.meta.dirname, "..", "..", "..");

export interface ScreenshotOptions {
  /** The whole page rather than the window (not for lists that grow with the deployment). */
  readonly fullPage?: boolean;
  /** One of the README's images. */
  readonly inReadme?: boolean;
}

export async function saveScreenshot(
  recorded: RecordedPage,
  name: string,
  options: ScreenshotOptions = {},
): Promise<void> {
  const path = join(root, ".build", "screenshots", `${name}.png`);
  await recorded.screenshot(path, { fullPage: options.fullPage ?? false });
  if (options.inReadme === true && process.env["UPDATE_SCREENSHOTS"] === "1") {
    await copyFile(path, join(root, "docs", "images", `${name}.png`));
  }
}
