/**
 * Money (DESIGN.md §2): the service computes in integer minor units (paise); JSON carries
 * numbers with at most two decimals. Dividing an integer by 100 gives the double nearest to
 * the two-decimal value, which prints with at most two decimals (5997 → 59.97), so no
 * rounding of a computed float is ever needed.
 */

/** The JSON amount (rupees, at most two decimals) of an integer amount in paise. */
export function amountOf(minor: number): number {
  return minor / 100;
}

/**
 * A minor-unit amount from the contract's int64, as a JS integer. Prices are at most 10^9
 * paise (the product contract caps them at 10^7 rupees), quantities 1000, lines 50: totals
 * stay below 2^53, so plain numbers are exact; anything else is a broken peer.
 */
export function minorUnits(value: bigint): number {
  const minor = Number(value);
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`not a minor-unit amount: ${value}`);
  return minor;
}
