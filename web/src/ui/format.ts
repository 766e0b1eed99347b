/** How amounts and moments read on screen. The platform's prices are in Indian rupees. */
const rupees = new Intl.NumberFormat("en-IN", { style: "currency", currency: "INR" });
const moment = new Intl.DateTimeFormat("en-IN", { dateStyle: "medium", timeStyle: "short" });
const day = new Intl.DateTimeFormat("en-IN", { dateStyle: "medium", timeZone: "UTC" });
const shortDay = new Intl.DateTimeFormat("en-IN", { day: "numeric", month: "short", timeZone: "UTC" });

export function formatMoney(amount: number): string {
  return rupees.format(amount);
}

/** A timestamp of the API (ISO 8601); shown as given when it does not parse. */
export function formatMoment(timestamp: string): string {
  const parsed = new Date(timestamp);
  return Number.isNaN(parsed.getTime()) ? timestamp : moment.format(parsed);
}

/** A day of the API (`2026-11-27`, a UTC day); `short` leaves the year out. */
export function formatDay(date: string, short = false): string {
  const parsed = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime())) return date;
  return (short ? shortDay : day).format(parsed);
}

/** `ORDER_PLACED` → `Order placed`. */
export function humanize(code: string): string {
  const words = code.toLowerCase().replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
