/**
 * The days `GET /api/analytics/revenue?from&to` covers (ADR 0056): UTC
 * days, both ends included. `to` defaults to today and `from` to 29 days before `to` (30 days
 * in all); at most 366 days; `from` after `to`, or a date that is not a calendar day, is 400.
 */
import { invalid } from "@commerce/runtime/errors";

export const defaultRangeDays = 30;
export const maxRangeDays = 366;
/** What the store's Date holds, and more than any shop needs. */
const earliest = "1970-01-01";
const latest = "2105-12-31";

const dayMs = 24 * 60 * 60 * 1000;

export interface DayRange {
  readonly from: string;
  readonly to: string;
  /** Every day from `from` to `to`, ascending. */
  readonly days: readonly string[];
}

/** `from` and `to` as given (empty when absent); `today` is the UTC day now. */
export function revenueRange(from: string, to: string, today: string): DayRange {
  const end = to === "" ? dayStart(today) : parseDay("to", to);
  const start = from === "" ? end - (defaultRangeDays - 1) * dayMs : parseDay("from", from);
  if (start > end) throw invalid(`"from" (${dayText(start)}) must not be after "to" (${dayText(end)})`);
  const count = (end - start) / dayMs + 1;
  if (count > maxRangeDays) {
    throw invalid(`the range from "from" to "to" must be at most ${maxRangeDays} days, got ${count}`);
  }
  const days = Array.from({ length: count }, (_, i) => dayText(start + i * dayMs));
  return { from: dayText(start), to: dayText(end), days };
}

/** Midnight UTC of a `YYYY-MM-DD` calendar day, in ms; a 400 for anything else. */
function parseDay(name: string, text: string): number {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March: a real day prints back as it was written.
  if (Number.isNaN(time) || dayText(time) !== text) {
    throw invalid(`"${name}" must be a calendar date YYYY-MM-DD, got "${text}"`);
  }
  if (text < earliest || text > latest) {
    throw invalid(`"${name}" must be a date from ${earliest} to ${latest}, got "${text}"`);
  }
  return time;
}

function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

function dayText(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
