/**
 * Versions of sums that replace each other in a ReplacingMergeTree(version): a sum stamped just
 * before it is sent, and taken after the writes it reads finished, read everything an
 * earlier-stamped sum of the same row read, so the row FINAL keeps is complete. Across processes
 * this leans on their clocks agreeing to the millisecond (ADR 0057).
 */

let lastVersion = 0;

/** A version later than every one this process gave before: microseconds of the wall clock. */
export function nextSumVersion(): number {
  lastVersion = Math.max(Date.now() * 1_000, lastVersion + 1);
  return lastVersion;
}
