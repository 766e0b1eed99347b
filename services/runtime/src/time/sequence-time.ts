/**
 * Creation times that order records exactly: epoch milliseconds, strictly increasing within one
 * process (steps of 1 µs inside one millisecond), so "newest first" is exact for records made
 * back to back. Across processes, records made in the same millisecond are ordered by the
 * listing's tie-breaker (the id).
 */
export type SequenceTime = (now: Date) => number;

export function createSequenceTime(): SequenceTime {
  let last = 0;
  return (now) => {
    last = Math.max(now.getTime(), last + 0.001);
    return last;
  };
}
