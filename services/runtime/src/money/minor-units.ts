/**
 * Money (ADR 0004): services compute in integer minor units (paise); JSON carries numbers
 * with at most two decimals. An amount that is not exact to two decimals is refused, not
 * rounded: rounding would store something other than what the client sent.
 */

/**
 * Minor units of `amount`, or undefined when it has more than two decimals (or is not a finite
 * number). `Math.round(amount * 100) / 100` is the double nearest to that two-decimal value,
 * which is exactly the double a client's two-decimal literal parses to, so the equality holds
 * for every valid amount and fails for every other.
 */
export function toMinorUnits(amount: number): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  const minor = Math.round(amount * 100);
  return Number.isSafeInteger(minor) && minor / 100 === amount ? minor : undefined;
}

/**
 * The JSON amount of `minor` minor units. Dividing an integer by 100 gives the double nearest
 * to the two-decimal value, which prints with at most two decimals (5997 → 59.97).
 */
export function fromMinorUnits(minor: number): number {
  return minor / 100;
}

/**
 * The JSON amount of a sum of minor units that may exceed 2^53 (an Int64 total read from the
 * analytics store): the double nearest to the exact two-decimal value, which for every sum
 * below 2^53 is `fromMinorUnits`' answer and prints with at most two decimals.
 */
export function fromMinorUnitsTotal(minor: bigint): number {
  const size = minor < 0n ? -minor : minor;
  const cents = String(size % 100n).padStart(2, "0");
  return Number(`${minor < 0n ? "-" : ""}${size / 100n}.${cents}`);
}

/**
 * A minor-unit amount received as a contract int64, as a JS integer. Prices are capped at 10^9
 * paise, quantities at 1000, lines at 50: totals stay below 2^53, so plain numbers are exact;
 * anything else is a broken peer.
 */
export function minorUnitsFromWire(value: bigint): number {
  const minor = Number(value);
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`not a minor-unit amount: ${value}`);
  return minor;
}
