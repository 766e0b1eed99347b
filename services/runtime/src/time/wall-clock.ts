/**
 * The contract's time formats (ADR 0003): timestamps are UTC wall-clock `YYYY-MM-DDTHH:MM:SS`
 * without a zone, dates `YYYY-MM-DD`.
 */

/** A source of the current time, injected so domain rules can be tested at any instant. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19);
}

export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
