/**
 * Waiting for something that arrives through the platform's events (a notification): a person
 * reloads the page until it is there. Each load gets a few seconds to show it; the whole wait
 * has the deadline the black-box suites give event-driven effects.
 */
import type { Locator, Page } from "playwright-core";
import { defaultDeadlineMs } from "../../acceptance/support/polling.js";

const perLoadMs = 2_000;

export async function reloadUntilShown(page: Page, shown: Locator, what: string): Promise<void> {
  const deadline = Date.now() + defaultDeadlineMs;
  for (;;) {
    try {
      await shown.first().waitFor({ timeout: perLoadMs });
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`${what} not shown within ${defaultDeadlineMs} ms`, { cause: error });
    }
    await page.reload();
  }
}
