/**
 * Prices are integers in minor units (paise) inside the service (DESIGN.md §2); the API carries
 * numbers with at most two decimals. A price that is not exact to two decimals is refused, not
 * rounded: rounding would store something other than what the client sent.
 */

/**
 * Minor units of `price`, or undefined when `price` has more than two decimals (or is not a
 * finite number). `Math.round(price * 100) / 100` is the double nearest to that two-decimal
 * value, which is exactly the double a client's two-decimal literal parses to, so the equality
 * holds for every valid price and fails for every other.
 */
export function toMinorUnits(price: number): number | undefined {
  if (!Number.isFinite(price)) return undefined;
  const minor = Math.round(price * 100);
  return Number.isSafeInteger(minor) && minor / 100 === price ? minor : undefined;
}

/** The API number for `minor` minor units (at most two decimals). */
export function fromMinorUnits(minor: number): number {
  return minor / 100;
}
