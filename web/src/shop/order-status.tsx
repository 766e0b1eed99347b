/** An order's or a payment's status as a badge: its word, and a colour that is never the only cue. */
import { humanize } from "../ui/format.js";

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{humanize(status)}</span>;
}
