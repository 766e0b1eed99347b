/**
 * What the journeys assert of every page besides what it shows: no serious or critical
 * accessibility violation, and, over the whole journey, nothing in the console and nothing
 * fetched from anywhere but 127.0.0.1 (the platform and its app are served on loopback).
 */
import { expect } from "chai";
import type { Page } from "playwright-core";
import { checkAccessibility, type RecordedPage } from "#testing/browser.js";

/** axe-core, run in the page, finds no serious or critical violation in what it shows now. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  expect(await checkAccessibility(page), `accessibility violations on ${where}`).to.deep.equal([]);
}

/**
 * The page logged no error and threw nothing, apart from the `expected` console lines (the
 * browser's own report of a refusal the test provoked), and requested nothing off 127.0.0.1.
 */
export function expectQuietAndLocal(recorded: RecordedPage, expected: readonly string[] = []): void {
  expect(recorded.errors, "console errors and uncaught exceptions").to.deep.equal(expected);
  expect(recorded.offsiteRequests, "requests that left 127.0.0.1").to.deep.equal([]);
}
