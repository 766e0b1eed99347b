/**
 * A description list as a person reads it (`<dt>`/`<dd>`: the roles term and definition): each
 * term with the text of its definition. The app shows an order's facts and the dashboard's
 * figures this way.
 */
import { expect } from "chai";
import type { Locator } from "playwright-core";

export async function definitionsIn(scope: Locator): Promise<Record<string, string>> {
  const terms = await scope.getByRole("term").allInnerTexts();
  const definitions = await scope.getByRole("definition").allInnerTexts();
  expect(definitions, "one definition per term").to.have.length(terms.length);
  return Object.fromEntries(terms.map((term, i) => [term.trim(), (definitions[i] ?? "").trim()]));
}
